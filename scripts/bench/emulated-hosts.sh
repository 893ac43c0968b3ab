# Sourced by the trial scripts that use emulated hosts (scripts/emulated-cluster.sh), not run.
# hold_emulated_hosts WHO N: waits up to 15 minutes for any other run's hold to end (another run's
# `down` would remove the hosts mid-trial; /tmp/preflight-emulated-cluster.lock, held by this
# shell until it exits), makes pf0..pfN-1 afresh and removes them when this shell exits or is
# interrupted. Needs $cluster (the path of emulated-cluster.sh). Exits 1, saying why (as WHO),
# when the hosts cannot be had.
hold_emulated_hosts() {
  local who=$1 count=$2
  exec 9>/tmp/preflight-emulated-cluster.lock
  flock -w 900 9 || { echo "$who: another run held the emulated hosts for 15 minutes (/tmp/preflight-emulated-cluster.lock)"; exit 1; }
  "$cluster" down >/dev/null 2>&1
  trap '"$cluster" down >/dev/null 2>&1' EXIT
  trap 'exit 130' INT TERM
  "$cluster" up "$count" || { echo "$who: cannot make the emulated hosts"; exit 1; }
}
