"""A file whose `skipped` attribute names the inter topology (one rank per group on one host)
and that holds only the other topology's case: check_skipped.py FILE."""
import json
import sys

import h5py


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


with h5py.File(sys.argv[1], "r") as f:
    skipped = json.loads(text(f.attrs["skipped"]))
    cases = len(f["cases"])
print(f"skipped: {skipped}; cases: {cases}")
sys.exit(0 if cases == 1 and len(skipped) == 1 and "topology inter: every group has one rank" in skipped[0] else 1)
