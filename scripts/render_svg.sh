#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# render_svg.sh - render a flame graph SVG (tachyon-conv --to svg) to a PNG
# with headless Chromium, so a person can look at it without a browser.
#
# usage: scripts/render_svg.sh [--img] IN.svg OUT.png [WIDTH [HEIGHT]]
#   WIDTH/HEIGHT: window size in pixels (default: the SVG's own size)
#   --img: show the SVG through an <img> element, where no script runs
#          (as in a code-review preview or an image viewer)
#
# Needs Debian's chromium package (apt-get install chromium). Runs
# offline: no network, no profile of the user (a throwaway data dir).
set -euo pipefail

img=0
if [ "${1:-}" = "--img" ]; then
    img=1
    shift
fi
if [ $# -lt 2 ]; then
    echo "usage: $0 [--img] IN.svg OUT.png [WIDTH [HEIGHT]]" >&2
    exit 2
fi
in=$1
out=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "render_svg: chromium not found (apt-get install chromium)" >&2
    exit 2
fi
# The SVG's own width and height attributes give the default window size.
size=$(head -c 4096 "$in" | tr '\n' ' ' |
       sed -n 's/.*<svg[^>]* width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1 \2/p')
width=${3:-$(echo "$size" | cut -d' ' -f1)}
height=${4:-$(echo "$size" | cut -d' ' -f2)}
width=${width:-1200}
height=${height:-800}

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
abs_in=$(cd "$(dirname "$in")" && pwd)/$(basename "$in")
abs_out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
url="file://$abs_in"
if [ $img = 1 ]; then
    page="$profile/img.html"
    printf '<!DOCTYPE html><html><body style="margin:0"><img src="%s">' \
        "$url" > "$page"
    printf '</body></html>\n' >> "$page"
    url="file://$page"
fi
"$browser" --headless --no-sandbox --disable-gpu \
    --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --hide-scrollbars \
    --user-data-dir="$profile" --window-size="${width%.*},${height%.*}" \
    --screenshot="$abs_out" "$url" >/dev/null 2>&1
test -s "$abs_out"
echo "render_svg: wrote $out (${width%.*}x${height%.*})"
