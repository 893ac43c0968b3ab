#!/usr/bin/env bash
# Do preflight's synthetic images cost what photographs cost to decode? Real photographs (by
# default the nature photographs of Debian's mate-backgrounds package) are scaled and cropped to
# 500x375 and saved as JPEG q90 4:2:0, as `preflight dataset make` writes its images; tjbench
# (libjpeg-turbo-progs) decodes each image of both sets (-rgb, one thread) and the table shows
# the median decode time per pixel of each set, their ratio (target 0.7..1.3: within 30%) and
# the mean size per image.
#   scripts/parity/synthetic-vs-photos.sh [BUILD_DIR]
#   env: PHOTOS (a directory of JPEG photographs; default /usr/share/backgrounds/mate/nature),
#        IMAGES (synthetic images, 24)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
py=/usr/bin/python3
photos=${PHOTOS:-/usr/share/backgrounds/mate/nature}
[[ -x $preflight ]] || { echo "synthetic-vs-photos: build preflight first" >&2; exit 2; }
command -v tjbench >/dev/null || { echo "synthetic-vs-photos: apt-get install libjpeg-turbo-progs" >&2; exit 2; }
ls "$photos"/*.jpg >/dev/null 2>&1 || { echo "synthetic-vs-photos: no photographs in $photos (apt-get install mate-backgrounds, or set PHOTOS)" >&2; exit 2; }
work=$(mktemp -d /var/tmp/synthetic-vs-photos.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/photos"
$py - "$photos" "$work/photos" <<'PY'
import glob, sys
from PIL import Image
for i, path in enumerate(sorted(glob.glob(sys.argv[1] + "/*.jpg"))):
    img = Image.open(path).convert("RGB")
    scale = max(500 / img.width, 375 / img.height)
    img = img.resize((max(500, round(img.width * scale)), max(375, round(img.height * scale))), Image.BICUBIC)
    x, y = (img.width - 500) // 2, (img.height - 375) // 2
    img.crop((x, y, x + 500, y + 375)).save(f"{sys.argv[2]}/photo-{i:03d}.jpg", quality=90, subsampling=2)
PY
"$preflight" dataset make --images "${IMAGES:-24}" --seed 5 "$work/synthetic" >/dev/null
ns_per_pixel() {  # DIR -> "median_ns_per_pixel mean_KB count"
  local dir=$1
  for img in "$dir"/*.jpg; do
    tjbench "$img" -rgb -quiet -benchtime 0.3 -warmup 0.1 2>/dev/null |
      awk '$1 == "RGB" && NF >= 9 {print 1000 / $NF; exit}'
  done | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
size_kb() { du -b "$1"/*.jpg | awk '{s += $1; n++} END {printf "%.1f", s / n / 1000}'; }
read -r syn < <(ns_per_pixel "$work/synthetic")
read -r pho < <(ns_per_pixel "$work/photos")
printf '%-44s %10s %10s\n' "set" "ns/pixel" "KB/image"
printf '%-44s %10.2f %10s\n' "synthetic (preflight dataset make)" "$syn" "$(size_kb "$work/synthetic")"
printf '%-44s %10.2f %10s\n' "photographs ($(ls "$work/photos" | wc -l), $photos, 500x375)" "$pho" "$(size_kb "$work/photos")"
printf '%-44s %10.2f %10s\n' "ratio synthetic / photographs (target 0.7..1.3)" \
  "$(awk -v a="$syn" -v b="$pho" 'BEGIN {print a / b}')" ""
