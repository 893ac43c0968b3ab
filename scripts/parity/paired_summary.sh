# Shared by the parity scripts (sourced): the table's numbers from paired runs.
summary() {  # file of "pf_bw pf_iops fio_bw fio_iops" lines -> the table's numbers
  /usr/bin/python3 - "$1" <<'PY'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def q(v, p):
    v = sorted(v); i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (i - lo) * (v[hi] - v[lo])
ratios = [r[0] / r[2] for r in rows]
fio = [r[2] for r in rows]
cv = st.stdev(fio) / st.mean(fio) if len(fio) > 1 else 0
print(f"{st.median(r[0] for r in rows):7.3f} {st.median(r[1] for r in rows):9.0f} "
      f"{st.median(fio):7.3f} {st.median(r[3] for r in rows):9.0f} "
      f"{st.median(ratios):6.3f} [{q(ratios, .25):5.3f},{q(ratios, .75):5.3f}] {cv * 100:4.0f}%")
PY
}
