#!/usr/bin/env bash
# A real single-host Slurm for tests and for trying the sbatch templates on one machine: munged,
# slurmctld and slurmd on 127.0.0.1, every file under one directory, torn down by `stop`.
#   scripts/slurm/local-cluster.sh start DIR   # prints the SLURM_CONF to export
#   scripts/slurm/local-cluster.sh stop DIR
# Needs root (slurmd runs jobs as their users), Debian's slurm-wlm and munge. Exit 77 with the
# reason when this machine cannot run it (a package missing, not root), so a test reports
# skipped, never passed. Where both are there (CI installs them), a daemon that does not start
# or a node that does not become idle is a failure: exit 1 with the daemon's log.
set -euo pipefail
action=${1:?usage: local-cluster.sh start|stop DIR} dir=${2:?usage: local-cluster.sh start|stop DIR}

skip() { echo "slurm: cannot run here: $*" >&2; exit 77; }
failed() { echo "slurm: $*" >&2; exit 1; }

stop() {
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [[ -s $pid ]] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  # Give them a moment, then make sure.
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    pgrep -f -- "-f $dir/slurm.conf" >/dev/null || break
    sleep 0.2
  done
  pkill -9 -f -- "-f $dir/slurm.conf" 2>/dev/null || true
  [[ -s $dir/munged.pid ]] && kill -9 "$(cat "$dir/munged.pid")" 2>/dev/null || true
  rm -f "$dir"/*.pid
}

if [[ $action == stop ]]; then stop; exit 0; fi
[[ $action == start ]] || { echo "usage: local-cluster.sh start|stop DIR" >&2; exit 2; }

for tool in munged slurmctld slurmd srun sinfo; do
  command -v "$tool" >/dev/null || skip "$tool not found (apt-get install slurm-wlm munge)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs"
[[ -r /etc/munge/munge.key ]] || failed "/etc/munge/munge.key missing, yet munge is installed (reinstall munge)"

mkdir -p "$dir"/{state,spool,log,munge}
chmod 755 "$dir" "$dir/munge"
install -m 400 /etc/munge/munge.key "$dir/munge/munge.key"
socket="$dir/munge/munge.socket"
munged --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" ||
  { stop; failed "munged did not start: $(tail -1 "$dir/log/munged.log" 2>/dev/null)"; }

host=$(hostname -s)
cpus=$(nproc)
memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 8 / 10))
port=$((20000 + RANDOM % 20000))
cat >"$dir/slurm.conf" <<CONF
ClusterName=preflight-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" || { stop; failed "slurmctld did not start: $(tail -2 "$dir/log/slurmctld.log" 2>/dev/null)"; }
slurmd -f "$SLURM_CONF" || { stop; failed "slurmd did not start: $(tail -2 "$dir/log/slurmd.log" 2>/dev/null)"; }
for _ in $(seq 1 150); do
  state=$(sinfo -h -N -o %T 2>/dev/null | head -1)
  [[ $state == idle ]] && { echo "$SLURM_CONF"; exit 0; }
  sleep 0.2
done
stop
failed "the node did not become idle within 30 s (state: ${state:-none}); slurmd.log: $(tail -2 "$dir/log/slurmd.log" 2>/dev/null)"
