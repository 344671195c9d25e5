#!/bin/sh
# Builds tests/package/pkg_config_c/consumer.c as a C user without CMake would, with the flags
# `pkg-config --cflags --libs leasehold_c` gives for an install in PREFIX, and runs it.
# Usage: build_and_run.sh PREFIX LIBDIR CC SOURCE OUTPUT [EXTRA_FLAGS...]
# EXTRA_FLAGS carry a sanitizer build's -fsanitize flags (the shim is instrumented then).
# Exits 77 (skipped) when pkg-config is missing.
set -eu
prefix=$1
libdir=$2
cc=$3
source=$4
output=$5
shift 5

if ! command -v pkg-config >/dev/null 2>&1; then
  echo "leasehold-skip: pkg-config is not installed (Debian: pkgconf)"
  exit 77
fi

PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs leasehold_c)
echo "pkg-config --cflags --libs leasehold_c: $flags"
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c99 -o "$output" "$source" $flags "$@"
# A shared leasehold_c is found in the prefix as a user's LD_LIBRARY_PATH would find it.
LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
"$output"
