"""The selective-build ctest: a selective runner against the full one.

    python scripts/check_selective_build.py --full torchedge_minimal_run \
        --selective torchedge_selective_run --model mlp.pte --unselected small_cnn.pte

--model (a program whose kernels the selective build lists) must run and
print the same outputs (dtype, element count, FNV-1a hash of the bytes) as
the runner with every kernel; --unselected (a program needing a kernel the
list lacks) must fail at load_method with OperatorMissing naming that
kernel.
"""

from __future__ import annotations

import argparse
import subprocess
import sys


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", required=True)
    parser.add_argument("--selective", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--unselected", required=True)
    parser.add_argument("--missing-op", required=True, help="a kernel --unselected needs")
    args = parser.parse_args(argv)
    full = subprocess.run([args.full, args.model], capture_output=True, text=True)
    selective = subprocess.run([args.selective, args.model], capture_output=True, text=True)
    failures = []
    if full.returncode != 0 or selective.returncode != 0:
        failures.append(f"runs failed: full {full.returncode} {full.stderr.strip()}; "
                        f"selective {selective.returncode} {selective.stderr.strip()}")
    elif full.stdout != selective.stdout or not full.stdout.startswith("output 0"):
        failures.append(f"outputs differ:\nfull:\n{full.stdout}selective:\n{selective.stdout}")
    rejected = subprocess.run([args.selective, args.unselected], capture_output=True, text=True)
    message = rejected.stderr.strip()
    if rejected.returncode == 0:
        failures.append(f"{args.unselected} ran on the selective build")
    elif "load_method" not in message or "OperatorMissing" not in message or args.missing_op not in message:
        failures.append(f"{args.unselected}: expected load_method to fail naming {args.missing_op}, got: {message}")
    print(selective.stdout, end="")
    print(message)
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
