"""Wall time of `tfestimator-compat check`, which must start without importing TensorFlow.

Times, as a user meets them, each in a fresh process (best of `--rounds`):
- `check --help` and `check FILE` through the command's entry point
  (`python -m tfestimator_compat_command`, what the `tfestimator-compat`
  script runs);
- `python -m tfestimator_compat check FILE`, which imports the package and so
  TensorFlow, for comparison.

    python bench/check_startup.py [--rounds 5] [FILE]

FILE defaults to the `check` fixture of a TF1 estimator program.
"""

import argparse
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILE = os.path.join(REPO, "tests", "fixtures", "check", "legacy_estimator.py")


def best_seconds(argv, rounds):
    """The shortest wall time of `rounds` runs of `python ARGV...` in fresh processes."""
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="3")
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, *argv], env=env, cwd=REPO, capture_output=True, text=True
        )
        times.append(time.perf_counter() - start)
        if result.returncode not in (0, 1):
            raise RuntimeError(f"{argv} exited {result.returncode}:\n{result.stderr}")
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=DEFAULT_FILE)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    command = ["-m", "tfestimator_compat_command"]
    cases = [
        ("tfestimator-compat check --help", [*command, "check", "--help"], options.rounds),
        ("tfestimator-compat check FILE", [*command, "check", options.file], options.rounds),
        (
            "python -m tfestimator_compat check FILE",
            ["-m", "tfestimator_compat", "check", options.file],
            min(options.rounds, 2),
        ),
        ("python -c pass (interpreter alone)", ["-c", "pass"], options.rounds),
    ]
    print(f"best of N fresh processes; FILE = {os.path.relpath(options.file, REPO)}")
    for label, argv, rounds in cases:
        print(f"{label:45s} {best_seconds(argv, rounds):6.2f} s  (N={rounds})")


if __name__ == "__main__":
    main()
