#!/bin/sh
# Cargo's runner for x86_64-pc-windows-gnu (.cargo/config.toml): runs a
# Windows binary under Wine (Debian's wine + wine64, 64-bit only) with its
# arguments, exit code and output.
#
# The prefix is WINEPREFIX, else target/wine of this workspace: made on
# first use (about 10 s), under a lock so that parallel runs make it once,
# with bcryptprimitives.dll (bcryptprimitives.c, built with MinGW-w64's
# gcc), which Wine 8.0 lacks and every Rust binary imports. Wine's own
# messages are off unless WINEDEBUG is set; .NET and Gecko are never
# installed (a console or GL binary needs neither).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
: "${WINEPREFIX:=$here/../../../target/wine}"
: "${WINEDEBUG:=-all}"
WINEDLLOVERRIDES="mscoree,mshtml=${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ]; then
  mkdir -p "$(dirname "$WINEPREFIX")"
  (
    flock 9
    if [ ! -f "$dll" ]; then
      wineboot --init >/dev/null 2>&1
      wineserver --wait
      x86_64-w64-mingw32-gcc -shared -O2 -s -o "$dll.tmp" "$here/bcryptprimitives.c" -ladvapi32
      mv "$dll.tmp" "$dll"
    fi
  ) 9>"$WINEPREFIX.lock"
fi
exec wine "$@"
