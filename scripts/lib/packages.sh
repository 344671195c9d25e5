# Sourced by the scripts in scripts/: installs the Debian packages leasehold needs when they
# are missing, so that each script works on a fresh Debian machine.

# scripts/demo builds one example: the compiler, Boost, nlohmann/json (the library target
# needs it), CLI11 and the gzip readers only.
leasehold_demo_packages=(cmake g++ make libboost-dev nlohmann-json3-dev libcli11-dev libboost-iostreams-dev
                         zlib1g-dev)
leasehold_packages=(cmake g++ make libboost-dev nlohmann-json3-dev doctest-dev libbenchmark-dev
                    libcli11-dev)
# The io layer's gzip readers (leasehold::iostreams): Boost.Iostreams' gzip filter over zlib.
leasehold_packages+=(libboost-iostreams-dev zlib1g-dev)
# The SVG figures are checked with a real XML parser and rendered in the tests.
leasehold_packages+=(libxml2-utils librsvg2-bin)
# The C API's pkg-config module is checked with pkg-config itself (tests/package/pkg_config_c).
leasehold_packages+=(pkgconf)
# The API reference (the docs target and its ctest, warnings as errors).
leasehold_packages+=(doxygen)
# The Python module (pybind11), its pytest suite and `pip install --no-build-isolation .`.
leasehold_packages+=(python3-dev pybind11-dev python3-pybind11 python3-pytest python3-setuptools)
# The fuzz preset (scripts/fuzz): Debian's default clang and the compiler-rt package that
# provides libFuzzer (-fsanitize=fuzzer) and the sanitizer runtimes for it.
leasehold_fuzz_packages=(clang libclang-rt-dev)
# The Slurm test (tests/slurm/run_sweep.sh): a one-node Slurm cluster with munge
# authentication, started by the test itself.
leasehold_slurm_packages=(slurm-wlm munge)

ensure_packages() {
  local missing=()
  local package
  for package in "${leasehold_packages[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "leasehold: missing packages ${missing[*]}; run as root or install them first" >&2
      return 1
    fi
  fi
  echo "leasehold: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
