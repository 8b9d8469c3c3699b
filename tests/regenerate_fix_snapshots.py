"""Rewrite the fix snapshots from what `jaxlint check --fix` writes now (a developer's tool,
run after a change to a rewrite; read the diff before committing it):

    python -m tests.regenerate_fix_snapshots [CASE ...]

`<case>.out.py` is the fix with `target = "cpu"`; `<case>.accelerator.out.py` the fix with
`target = "tpu"` where it differs (removed where it no longer does). KNOWN_BUGS cases keep
their hand-written snapshots."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.test_fix_fixtures import CASES, FIX_FIXTURES, KNOWN_BUGS, _read, _run_fix


def main(argv: list[str]) -> int:
    cases = [c for c in (argv or CASES) if c not in KNOWN_BUGS]
    sources = {case: _read(case, ".in.py") for case in cases}
    loops = {c: s for c, s in sources.items() if c.startswith("loop_")}
    with tempfile.TemporaryDirectory() as folder:
        cpu = _run_fix(Path(folder) / "cpu", sources, "json").fixed
        tpu = _run_fix(Path(folder) / "tpu", loops, "json", "tpu").fixed
    changed = []
    for case in cases:
        out = FIX_FIXTURES / f"{case}.out.py"
        if out.read_text(encoding="utf-8") != cpu[case]:
            out.write_text(cpu[case], encoding="utf-8")
            changed.append(out.name)
        accelerator = FIX_FIXTURES / f"{case}.accelerator.out.py"
        if case in tpu and tpu[case] != cpu[case]:
            if not accelerator.exists() or accelerator.read_text(encoding="utf-8") != tpu[case]:
                accelerator.write_text(tpu[case], encoding="utf-8")
                changed.append(accelerator.name)
        elif accelerator.exists():
            accelerator.unlink()
            changed.append(f"{accelerator.name} (removed)")
    print("\n".join(changed) or "no snapshot changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
