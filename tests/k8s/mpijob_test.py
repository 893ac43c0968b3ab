#!/usr/bin/env python3
"""The Kubernetes MPIJob manifest (scripts/k8s/preflight-mpijob.yaml) holds together: the kind and
apiVersion the MPI Operator serves, one rank per GPU (mpirun -np = Worker replicas x
slotsPerWorker = replicas x the GPUs each worker asks for), the command runs the campaign and then
the report into the results volume, every volume mounted is defined in its pod, and the results
volume is the same claim on the launcher and the workers.

mpijob_test.py MANIFEST"""
import re
import sys

import yaml

failures = 0


def check(ok, what):
    global failures
    print(("ok:   " if ok else "FAIL: ") + what)
    failures += 0 if ok else 1


doc = yaml.safe_load(open(sys.argv[1]))
check(doc.get("apiVersion") == "kubeflow.org/v2beta1", "apiVersion kubeflow.org/v2beta1")
check(doc.get("kind") == "MPIJob", "kind MPIJob")
spec = doc["spec"]
replicas = spec["mpiReplicaSpecs"]
launcher, worker = replicas["Launcher"], replicas["Worker"]
check(launcher.get("replicas") == 1, "one launcher")
slots = spec.get("slotsPerWorker")
workers = worker.get("replicas")
wpod = worker["template"]["spec"]
wcontainer = wpod["containers"][0]
gpus = wcontainer.get("resources", {}).get("limits", {}).get("nvidia.com/gpu")
check(isinstance(gpus, int) and gpus == slots, f"each worker asks for slotsPerWorker ({slots}) GPUs: {gpus}")
check("IPC_LOCK" in wcontainer.get("securityContext", {}).get("capabilities", {}).get("add", []),
      "workers may lock memory (IPC_LOCK) for registered buffers")

lpod = launcher["template"]["spec"]
command = " ".join(lpod["containers"][0].get("command", []) + lpod["containers"][0].get("args", []))
np = re.search(r"mpirun -np (\d+) --npernode (\d+)", command)
check(np is not None, "the launcher runs mpirun -np N --npernode M")
if np:
    check(int(np.group(1)) == workers * slots, f"-np {np.group(1)} = {workers} workers x {slots} slots")
    check(int(np.group(2)) == slots, f"--npernode {np.group(2)} = slotsPerWorker")
run = re.search(r'preflight run (\S+) -o "\$out/results\.h5"', command)
out = re.search(r"out=(/[\w.-]+)/", command)
check(run is not None and out is not None, "the command runs a campaign with -o $out/results.h5 under a volume")
report = re.search(r"preflight-report \S+results\.h5.*--json", command)
check(report is not None and command.index("preflight run") < command.index("preflight-report"),
      "then the report, with a JSON verdict")


def mounts_defined(pod, role):
    defined = {v["name"]: v for v in pod.get("volumes", [])}
    for c in pod["containers"]:
        for m in c.get("volumeMounts", []):
            check(m["name"] in defined, f"{role}: volume {m['name']} mounted at {m['mountPath']} is defined")
    return defined


lvol, wvol = mounts_defined(lpod, "launcher"), mounts_defined(wpod, "worker")


def claim(volumes):
    return volumes.get("results", {}).get("persistentVolumeClaim", {}).get("claimName")


check(claim(lvol) is not None and claim(lvol) == claim(wvol),
      f"launcher and workers share the results claim ({claim(lvol)}, {claim(wvol)})")
if out:
    for pod, role in ((lpod, "launcher"), (wpod, "worker")):
        paths = [m["mountPath"] for c in pod["containers"] for m in c.get("volumeMounts", [])]
        check(out.group(1) in paths, f"{role} mounts {out.group(1)}, where the results go")
print(f"{failures} failed")
sys.exit(1 if failures else 0)
