#!/bin/sh
# Checks one SVG file with a real XML parser (xmllint, Debian libxml2-utils) and renders it
# with librsvg (rsvg-convert, Debian librsvg2-bin), each bounded in time. Exits 77 (ctest's
# SKIP_RETURN_CODE) with a message naming the package when a tool is missing.
#   check_svg.sh parse|render FILE.svg
set -u
mode=$1
file=$2
case "$mode" in
  parse) tool=xmllint package=libxml2-utils ;;
  render) tool=rsvg-convert package=librsvg2-bin ;;
  *) echo "check_svg.sh: unknown mode $mode" >&2; exit 2 ;;
esac
if ! command -v "$tool" >/dev/null 2>&1; then
  echo "SKIPPED: $tool is not installed (Debian package $package)"
  exit 77
fi
if [ ! -s "$file" ]; then
  echo "check_svg.sh: $file is missing or empty" >&2
  exit 1
fi
if [ "$mode" = parse ]; then
  timeout 30 xmllint --noout "$file" || exit 1
  echo "$file: well-formed XML"
else
  png="$file.png"
  rm -f "$png"
  timeout 30 rsvg-convert --format png --output "$png" "$file" || exit 1
  [ -s "$png" ] || { echo "check_svg.sh: rsvg-convert wrote no image for $file" >&2; exit 1; }
  echo "$file: rendered to $png"
fi
