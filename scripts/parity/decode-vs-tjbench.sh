#!/usr/bin/env bash
# Parity of the dataloader family, on the very same images (a synthetic set preflight makes,
# ImageNet-like: about 500x375, JPEG q90 4:2:0):
#   1. decode only, one thread: preflight's decode stage (its pipeline with one worker, warm
#      page cache, counters/decode_s) beside tjbench's decode of each image (Debian's
#      libjpeg-turbo-progs; -rgb as preflight decodes, accurate DCT on both sides), as images/s
#      over the set (tjbench: images / sum of each image's pixels / its Mpixels/s); target >= 0.95;
#      and beside bare_decode.c (built here): the same TurboJPEG calls over the same images in
#      turn, as a pipeline meets them. tjbench times one image over and over, which its branch
#      predictors and caches learn; bare_decode's repeat order does the same and shows how much
#      of tjbench's lead that is (the rows "bare loop: repeat / tjbench" and "repeat / in turn");
#   2. two-thread scaling: preflight's images/s with 2 workers / with 1 (no compute); target >= 1.8;
#   3. the full pipeline (decode, random-resized crop to 224, flip, normalise to float32) with one
#      worker beside a Python PIL loop doing the same per image (python3-pil, numpy), what many
#      users run today, per core; target >= 3.
# Each figure is the median of REPS runs. On a shared VM the figures are indicative only.
#   scripts/parity/decode-vs-tjbench.sh [BUILD_DIR]
#   env: IMAGES (64), REPS (3), DIR (default a fresh one in /var/tmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
py=/usr/bin/python3
[[ -x $preflight ]] || { echo "decode-vs-tjbench: build preflight first" >&2; exit 2; }
command -v tjbench >/dev/null || { echo "decode-vs-tjbench: tjbench is not installed (apt-get install libjpeg-turbo-progs)" >&2; exit 2; }
$py -c "import PIL, numpy" 2>/dev/null || { echo "decode-vs-tjbench: python3-pil and python3-numpy are needed" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
images=${IMAGES:-64} reps=${REPS:-3}
work=$(mktemp -d "${DIR:-/var/tmp}/decode-vs-tjbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$preflight" dataset make --images "$images" --seed 3 "$work/set" >/dev/null
cc -O2 -o "$work/bare_decode" "$here/bare_decode.c" -lturbojpeg

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# preflight's pipeline over the set: one pass of all images per iteration, warm, no compute.
preflight_run() {  # workers crop -> "images_per_s decode_images_per_s"
  local out=$work/p$RANDOM.h5
  mpirun -np 1 --bind-to none "$preflight" dataloader --data-dir "$work/set" --workers "$1" \
    --batch-size 8 --crop "$2" --cache warm --warmup 1 --min-iters 5 --iters 5 -o "$out" >/dev/null
  $py - "$out" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    c = f["cases"]["000000"]
    pg = c["points"]["0000"]["counters"]
    print(float(c["stats"]["images_per_s"][0]), float(np.median(pg["images"][:, 0] / pg["decode_s"][:, 0])))
PY
  rm -f "$out"
}
tjbench_run() {  # -> images/s over the set, one thread
  local total=0
  for img in "$work"/set/*.jpg; do
    local dims mpix
    dims=$($py -c "from PIL import Image; import sys; w, h = Image.open(sys.argv[1]).size; print(w * h)" "$img")
    mpix=$(tjbench "$img" -rgb -quiet -benchtime 0.3 -warmup 0.1 2>/dev/null |
           awk '$1 == "RGB" && NF >= 9 {print $NF; exit}')
    total=$(awk -v t="$total" -v p="$dims" -v r="$mpix" 'BEGIN {print t + p / (r * 1e6)}')
  done
  awk -v n="$images" -v t="$total" 'BEGIN {print n / t}'
}
pil_run() {  # -> images/s of decode + random-resized crop + flip + normalise, one process
  $py - "$work/set" <<'PY'
import glob, math, random, sys, time
import numpy as np
from PIL import Image
files = sorted(glob.glob(sys.argv[1] + "/*.jpg"))
blobs = [open(f, "rb").read() for f in files]
mean = np.array([0.485, 0.456, 0.406], dtype=np.float32)
std = np.array([0.229, 0.224, 0.225], dtype=np.float32)
rng = random.Random(1)
def crop(w, h):  # torchvision's RandomResizedCrop parameters
    for _ in range(10):
        area = w * h * rng.uniform(0.08, 1.0)
        ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
        cw, ch = int(round(math.sqrt(area * ratio))), int(round(math.sqrt(area / ratio)))
        if 0 < cw <= w and 0 < ch <= h:
            x, y = rng.randint(0, w - cw), rng.randint(0, h - ch)
            return (x, y, x + cw, y + ch)
    return (0, 0, w, h)
import io
def one(b):
    img = Image.open(io.BytesIO(b)).convert("RGB")
    out = img.resize((224, 224), Image.BILINEAR, box=crop(*img.size))
    if rng.random() < 0.5:
        out = out.transpose(Image.FLIP_LEFT_RIGHT)
    return (np.asarray(out, dtype=np.float32) / 255.0 - mean) / std
for b in blobs[:8]:
    one(b)
best = []
for _ in range(3):
    t = time.perf_counter()
    for b in blobs:
        one(b)
    best.append(len(blobs) / (time.perf_counter() - t))
print(sorted(best)[1])
PY
}

bare_run() {  # cycle|repeat -> images/s of the bare TurboJPEG loop, one thread
  "$work/bare_decode" "$1" 10 "$work"/set/*.jpg
}

declare -a p1 p2 pd tj pil bc br
for r in $(seq "$reps"); do
  read -r rate decode < <(preflight_run 1 224); p1+=("$rate"); pd+=("$decode")
  bc+=("$(bare_run cycle)")
  read -r rate _ < <(preflight_run 2 224); p2+=("$rate")
  tj+=("$(tjbench_run)")
  br+=("$(bare_run repeat)")
  pil+=("$(pil_run)")
done
m() { printf '%s\n' "$@" | median; }
dec=$(m "${pd[@]}") tjm=$(m "${tj[@]}") one=$(m "${p1[@]}") two=$(m "${p2[@]}") pilm=$(m "${pil[@]}")
bcm=$(m "${bc[@]}") brm=$(m "${br[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print a / b}'; }
printf '%-52s %12s %12s %8s %8s\n' "figure ($images images, median of $reps)" preflight peer ratio target
printf '%-52s %12.1f %12.1f %8.2f %8s\n' "decode only, 1 thread, images/s (peer: tjbench)" "$dec" "$tjm" \
  "$(ratio "$dec" "$tjm")" ">=0.95"
printf '%-52s %12.1f %12.1f %8.2f %8s\n' "decode only, 1 thread (peer: bare loop, in turn)" "$dec" "$bcm" \
  "$(ratio "$dec" "$bcm")" ">=0.95"
printf '%-52s %12.1f %12.1f %8.2f %8s\n' "check: bare loop, repeat order / tjbench" "$brm" "$tjm" \
  "$(ratio "$brm" "$tjm")" "~1"
printf '%-52s %12.1f %12.1f %8.2f %8s\n' "check: bare loop, repeat order / in turn" "$brm" "$bcm" \
  "$(ratio "$brm" "$bcm")" "-"
printf '%-52s %12.1f %12.1f %8.2f %8s\n' "pipeline, 2 workers vs 1, images/s (peer: 1 worker)" "$two" "$one" \
  "$(awk -v a="$two" -v b="$one" 'BEGIN {print a / b}')" ">=1.8"
printf '%-52s %12.1f %12.1f %8.2f %8s\n' "full pipeline, 1 core, images/s (peer: PIL loop)" "$one" "$pilm" \
  "$(awk -v a="$one" -v b="$pilm" 'BEGIN {print a / b}')" ">=3"
