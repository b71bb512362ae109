#!/bin/sh
# Installs what building, testing and documenting vramplan needs on Debian 12 (bookworm).
# Run as root, or as a user with sudo. Installs nothing from outside Debian's archive.
# The calculator page's toolchain is included (lld, wasi-libc, libclang-rt-14-dev-wasm32:
# with them `meson setup` builds web/ by default), and gcc-multilib for the 32-bit build test
# and python3-venv for the pip install test. Chromium is not (a browser is a large install
# for a build machine): without it the page's browser test is skipped; .ci/run installs it.
set -eu
packages="build-essential meson ninja-build pkg-config check doxygen valgrind clang
          libclang-rt-14-dev binutils python3 python3-venv lld wasi-libc
          libclang-rt-14-dev-wasm32 gcc-multilib"
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
missing=
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing="$missing $p"
done
if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
echo "install-deps-debian: all build and test packages present"
