"""The observation run (`jaxlint check --observe CMD`): run the project's own command once with
JAX watched (shim.py, in the child), read what it showed as hazards (evidence.py), keep them by
source content (run.py) and join them to the static findings (attach.py)."""
