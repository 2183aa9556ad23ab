#!/bin/bash
# Renders `mpiete report`'s page of the hand-written samples in headless Chromium: the page
# must run its script to the end (data-rendered="ok" in the DOM) and log nothing to the
# console; the screenshot stays in OUT. A page that throws is checked first, so that the
# console check is known to catch an error.
# usage: browser_check.sh MPIETE SAMPLES OUT
set -u
mpiete=$1 samples=$2 out=$3
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIP: no chromium (Debian: apt-get install chromium)"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
render() { # render PAGE MODE(--dump-dom|--screenshot=FILE) -> DOM on stdout, log in $out/log
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$out/profile" --enable-logging=stderr --v=0 --window-size=1000,1900 \
    "$2" "file://$1" 2>"$out/log"
}
printf '<!DOCTYPE html><html><body><script>null.x();</script></body></html>\n' >"$out/throws.html"
render "$out/throws.html" --dump-dom >/dev/null
if ! grep -q 'CONSOLE.*Uncaught TypeError' "$out/log"; then
  echo "FAIL: chromium's log did not show the control page's error; cannot check the report"
  cat "$out/log"
  exit 1
fi

"$mpiete" report --estimate "$samples/estimate.yaml" --timeline "$samples/timeline.json" \
  --measured "$samples/measured.txt" --whatif "$samples/whatif.yaml" \
  --surface "$samples/surface.yaml" --title "mpiete report (samples)" -o "$out/report.html" || exit 1
render "$out/report.html" --dump-dom >"$out/dom.html"
status=0
if grep 'CONSOLE' "$out/log"; then
  echo "FAIL: the page wrote to the console (above)"
  status=1
fi
if ! grep -q 'data-rendered="ok"' "$out/dom.html"; then
  echo "FAIL: the page's script did not run to the end"
  status=1
fi
render "$out/report.html" --screenshot="$out/report.png" >/dev/null
if [ ! -s "$out/report.png" ]; then
  echo "FAIL: no screenshot"
  status=1
fi
[ $status = 0 ] && echo "PASS: rendered without console messages; screenshot $out/report.png"
exit $status
