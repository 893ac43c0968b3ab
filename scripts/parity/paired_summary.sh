# Shared by the parity scripts (sourced): the table's numbers from paired runs, and the
# storage scripts' eviction of fio's files before each fio run.
summary() {  # file of "pf_bw pf_iops fio_bw fio_iops [pf_span_bw]" lines -> the table's numbers
  /usr/bin/python3 - "$1" <<'PY'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def q(v, p):
    v = sorted(v); i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (i - lo) * (v[hi] - v[lo])
ratios = [r[0] / r[2] for r in rows]
fio = [r[2] for r in rows]
cv = st.stdev(fio) / st.mean(fio) if len(fio) > 1 else 0
line = (f"{st.median(r[0] for r in rows):7.3f} {st.median(r[1] for r in rows):9.0f} "
        f"{st.median(fio):7.3f} {st.median(r[3] for r in rows):9.0f} "
        f"{st.median(ratios):6.3f} [{q(ratios, .25):5.3f},{q(ratios, .75):5.3f}] {cv * 100:4.0f}%")
# A fifth column: preflight's own figure over its ranks' span (first start to last finish), as
# it reports it; shown as its median ratio to the first column (1.000: the two agree).
if rows and all(len(r) > 4 for r in rows):
    line += f" {st.median(r[4] / r[0] for r in rows):5.3f}"
print(line)
PY
}

# What preflight does before each timed read or save (evict_range, untimed): each file's dirty
# pages written back, then all its pages dropped from the page cache. fio's invalidate=1 drops
# them too, but inside its timed run, when it opens the file: run before fio, this leaves it
# nothing to drop, so neither side's clock includes the eviction.
evict() {  # files...
  /usr/bin/python3 - "$@" <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
PY
}

# A virtual disk may be served from its host's page cache or from the host's own disk, and
# which one a run gets changes from run to run (on the development VM the same direct read of 1
# GiB ran at 2 and at 9 GB/s). With WARM_SOURCE=1 (the default) each run, on either side,
# starts after one untimed O_DIRECT read of the files it reads: both sides then read from the
# same source. The guest's page cache is untouched (O_DIRECT), so each run's own eviction still
# makes its reads cold here. WARM_SOURCE=0 leaves the source as it is.
warm_source() {  # files...
  [[ ${WARM_SOURCE:-1} == 1 ]] || return 0
  local f
  for f in "$@"; do dd if="$f" of=/dev/null bs=4M iflag=direct status=none; done
}
