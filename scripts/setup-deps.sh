#!/usr/bin/env bash
# Installs the Debian 12 packages Yee Studio needs to build, test and run (as root, or through sudo
# when run by another user). Does nothing, quickly, when every package is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build clang libclang-rt-14-dev
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev libvtk9-dev libhdf5-dev
  libopenmpi-dev openmpi-bin nlohmann-json3-dev
  libeigen3-dev libspectra-dev libarpack2-dev libnlopt-cxx-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
  python3-dev python3-scipy python3-pip
  xvfb xauth mesa-utils libgl1-mesa-dri appstream desktop-file-utils
)

# Optional, from PyPI: gdstk for the Python module's GDS import/export (yee.gds). Allowed to fail (no
# network, no pip): the tests that need it are skipped, and one checks the message users then get.
install_gdstk() {
  if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c "import gdstk" 2>/dev/null; then
    timeout 300 /usr/bin/python3 -m pip install --quiet --timeout 60 --break-system-packages gdstk ||
      echo "setup-deps: gdstk not installed (optional; the yee.gds tests will be skipped)" >&2
  fi
  return 0
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup-deps: all ${#packages[@]} Debian packages are installed"
  install_gdstk
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "setup-deps: missing packages (${missing[*]}); run this script as root" >&2
    exit 1
  fi
fi

echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  -o DPkg::Lock::Timeout=600 "${missing[@]}"
install_gdstk
