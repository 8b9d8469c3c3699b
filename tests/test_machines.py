"""Verification on the machines JAX users have (issue 28), reproduced on a small one: a child
whose runtimes reserve gigabytes of address space, more workers than cores, a worker killed in
the middle of a run, a child that really uses too much memory. Real CLI processes, real JAX."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jaxlint.files import LOST_WORKER
from jaxlint.verify import VerifyRequest, jax_available, verify
from jaxlint.verify.memory import ENVIRONMENT_NAME, limit_mb

pytestmark = pytest.mark.skipif(not jax_available(), reason="JAX is not installed")

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
JAXLINT = [sys.executable, "-m", "jaxlint"]

# What XLA's CPU client, libtpu and the CUDA plugin do on a many-core or accelerator host: map
# gigabytes of address space up front and touch little of it.
RESERVE_ADDRESS_SPACE = """
    import mmap

    NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)  # Linux's values; Python 3.11 has
    PROT_NONE = getattr(mmap, "PROT_NONE", 0)  # neither name
    _RESERVED = mmap.mmap(
        -1, 8 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | NORESERVE, prot=PROT_NONE
    )
"""


def run_jaxlint(*arguments: str, cwd: Path, **environment: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, JAXLINT_CACHE_DIR=str(cwd / ".cache"), **environment)
    return subprocess.run(
        [*JAXLINT, *arguments], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def verified_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip().startswith("verified on ")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reserves as runtimes do on Linux")
def test_a_child_with_gigabytes_of_address_space_reserved_still_verifies(tmp_path: Path) -> None:
    # sitecustomize runs in every Python started with this PYTHONPATH, the verification child too
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(textwrap.dedent(RESERVE_ADDRESS_SPACE))
    project = tmp_path / "project"
    shutil.copytree(SEED, project)
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    status = subprocess.run(
        [sys.executable, "-c", "print(open('/proc/self/status').read())"],
        env=dict(os.environ, PYTHONPATH=path),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (size,) = [line.split()[1] for line in status.splitlines() if line.startswith("VmSize:")]
    assert int(size) > 8 << 20  # kB: the reservation is really there
    done = run_jaxlint("check", "--fix", "--diff", ".", cwd=project, PYTHONPATH=path)
    assert "MemoryError" not in done.stdout + done.stderr
    assert len(verified_lines(done.stdout + done.stderr)) == 3, done.stdout + done.stderr


def test_more_workers_than_cores_verify_through_the_one_session(tmp_path: Path) -> None:
    for number in range(16):  # 16 files, so 16 workers: every one of them asks the session
        shutil.copy(SEED / "cumulative_sum.py", tmp_path / f"sums{number}.py")
    done = run_jaxlint("check", "--fix", "--diff", "--jobs", "16", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # --diff writes nothing
    assert "Traceback" not in done.stderr
    assert len(verified_lines(done.stdout + done.stderr)) == 32  # two loops a file
    assert done.stdout.count("+++ b/sums") == 16


def _children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid`, read from /proc."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
            children.append(int(entry))
    return children


def test_chunks_not_handed_out_before_the_pool_broke_are_linted_here(tmp_path: Path) -> None:
    """A worker killed while the chunks are still being handed out breaks the pool under
    `submit` (BrokenProcessPool from `submit` itself: an internal error, exit 2, before): each
    chunk is linted in the main process, with the lost worker said once."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from jaxlint import files
    from jaxlint.engine.config import Config

    paths = []
    for number in range(4):
        path = tmp_path / f"m{number}.py"
        path.write_text("import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n")
        paths.append(path)
    with ProcessPoolExecutor(max_workers=1) as pool:
        pool.submit(os.getpid).result()  # its one worker is up
        for process in list(pool._processes.values()):
            process.kill()
        with pytest.raises(BrokenProcessPool):
            while True:  # until the pool has noticed
                pool.submit(os.getpid).result()
        outcomes = files._collect(
            pool, [paths[:2], paths[2:]], Config(), files.LintOptions(verify=False), None
        )
    assert [o.path for o in outcomes] == [str(p) for p in paths]
    assert [d.code for o in outcomes for d in o.diagnostics] == ["JAX201"] * 4
    assert [o.note for o in outcomes].count(LOST_WORKER) == 1


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers in /proc")
def test_a_worker_killed_mid_run_is_one_clear_line_and_its_files_are_still_linted(
    tmp_path: Path,
) -> None:
    loop = textwrap.dedent(
        """
        import jax


        @jax.jit
        def total(x):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            return s
        """
    )
    for number in range(600):
        (tmp_path / f"module{number:03}.py").write_text(loop)
    env = dict(os.environ, JAXLINT_CACHE_DIR=str(tmp_path / ".cache"))
    arguments = [*JAXLINT, "check", "--no-cache", "--jobs", "2", "."]
    process = subprocess.Popen(
        arguments, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while not workers and time.monotonic() < deadline and process.poll() is None:
            workers = _children_of(process.pid)
            time.sleep(0.01)
        assert workers, "the pool's workers never started"
        os.kill(workers[0], signal.SIGKILL)
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1
    assert "Traceback" not in err
    assert err.count(LOST_WORKER) == 1, err
    assert out.count(": JAX101 ") == 600  # every file linted, by the survivors or the main process


HOG = """
    import numpy as np

    def hog(x):
        pages = []
        for _ in range(64):
            pages.append(np.ones(2**27))  # 1 GiB each, touched
        return x
"""


def test_a_child_past_its_resident_memory_limit_is_stopped_and_says_so(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(ENVIRONMENT_NAME, "2048")
    source = textwrap.dedent(HOG)
    path = tmp_path / "hog.py"
    path.write_text(source)
    request = VerifyRequest("hog", str(path), source, source, "hog", "X", False)
    (result,) = verify([request])
    assert result.status == "unverifiable"
    assert result.reason == (
        f"verification used more than 2 GiB of memory ({ENVIRONMENT_NAME}=2048)"
    )


def test_the_default_limit_scales_with_the_machine() -> None:
    from jaxlint.verify.memory import machine_memory_bytes

    total = machine_memory_bytes()
    assert total is not None
    assert limit_mb({}) == max(2048, total // 4 // 2**20)
    assert limit_mb({ENVIRONMENT_NAME: "0"}) == 0  # off
    assert limit_mb({ENVIRONMENT_NAME: "3000"}) == 3000
