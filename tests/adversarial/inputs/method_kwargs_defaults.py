from adv_data import arr

CALLS = [
    (
        "Classifier.predict_proba",
        "default temperature",
        lambda m: m.Classifier(arr(4, 3), arr(3, seed=1)).predict_proba(arr(5, 4)),
    ),
    (
        "Classifier.predict_proba",
        "temperature kw 0.5",
        lambda m: m.Classifier(arr(4, 3), arr(3, seed=1)).predict_proba(arr(5, 4), temperature=0.5),
    ),
    (
        "Classifier.predict_proba",
        "temperature positional array",
        lambda m: m.Classifier(arr(2, 6), arr(6, seed=1)).predict_proba(
            arr(2), arr(1, seed=5) ** 2 + 0.5
        ),
    ),
    (
        "Classifier.predict",
        "offset default",
        lambda m: m.Classifier(arr(4, 3), arr(3, seed=1)).predict(arr(7, 4)),
    ),
    (
        "Classifier.predict",
        "offset=10",
        lambda m: m.Classifier(arr(4, 3), arr(3, seed=1)).predict(arr(7, 4), offset=10),
    ),
    (
        "Classifier.predict",
        "positional offset (TypeError)",
        lambda m: m.Classifier(arr(4, 3), arr(3, seed=1)).predict(arr(7, 4), 3),
    ),
]
