"""Digests (scripts/kernel_digests.py) of the kernels as patched by one of scripts/exchange_cost.py's
variants, to check in the same device call that a variant keeps the numbers (issue 14's rule):

    python3 scripts/variant_digests.py VARIANT [--algorithms a,b]   ("as committed": unpatched)
    diff <(python3 scripts/variant_digests.py "as committed" ...) <(python3 scripts/variant_digests.py V ...)
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import exchange_cost  # noqa: E402
import kernel_digests  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in exchange_cost.VARIANTS:
        sys.exit(f"usage: variant_digests.py VARIANT [--algorithms a,b]; variants: {', '.join(exchange_cost.VARIANTS)}")
    exchange_cost.use(sys.argv.pop(1))
    raise SystemExit(kernel_digests.main())
