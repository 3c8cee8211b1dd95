#!/usr/bin/env bash
# Builds (here, with nvcc 13 for sm_90) and packs the carried GPU bundle: one folder holding libyee's
# programs and GPU tests (yee-bench, yee-run, tst_gpu, tst_nccl, tst_kernels) with every shared library
# they need beyond the C library and the GPU driver, and a runner (run.sh, from tests/gpu/bundle-run.sh)
# that sets the library path (the bundle's libraries and the pip NCCL's lib folder) and runs the GPU
# check's stages. The GPU test machine has no Qt, HDF5 or nlohmann-json, so nothing is built there.
#
#   scripts/gpu-bundle.sh [--build DIR] [--reuse] [--out DIR] [--arch LIST] [--jobs N] [--max-mib M]
#
#   --build DIR   build directory (default build-gpu-bundle): configured Release, CUDA ON, UI OFF, MPI OFF
#   --reuse       pack what DIR already holds (no configure, no build), e.g. the CI build's artefacts
#   --out DIR     the bundle folder (default DIR/gpu-bundle); emptied first
#   --arch LIST   CMAKE_CUDA_ARCHITECTURES of a fresh configure (default 90: H100 / H200)
#   --jobs N      build parallelism (default nproc)
#   --max-mib M   size limit of the folder (default 60); over it the script fails
#
# Libraries: `ldd`-resolved. The C library family (libc, libm, libdl, libpthread, librt, ld-linux) and the
# driver (libcuda, libnvidia-*) stay the machine's; the C++ runtime (libstdc++, libgcc_s, libgomp) goes
# into lib/compat, which the runner uses only where the machine's own is too old. libcurl, which HDF5 links
# only for its S3 driver (never used here), is replaced by a stub, which drops curl's dozen TLS/LDAP/SSH
# libraries. The libraries travel gzip-compressed (lib.tar.gz; ICU's data alone is 30 MiB) and the runner
# unpacks them on first use; the programs too (bin.tar.gz: the statically linked kernels of three programs
# are most of the bundle). Prints the bundle's size and exits non-zero when a program's library is
# missing or the folder is over the limit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build-gpu-bundle
OUTDIR=
REUSE=0
ARCH=90
JOBS=$(nproc 2>/dev/null || echo 2)
MAX_MIB=60
while (($#)); do
    case $1 in
        --build) BUILD=$2; shift ;;
        --reuse) REUSE=1 ;;
        --out) OUTDIR=$2; shift ;;
        --arch) ARCH=$2; shift ;;
        --jobs) JOBS=$2; shift ;;
        --max-mib) MAX_MIB=$2; shift ;;
        -h | --help) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gpu-bundle: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
BUILD=$(realpath -m "$BUILD")
OUTDIR=$(realpath -m "${OUTDIR:-$BUILD/gpu-bundle}")

REQUIRED=(app/yee-bench app/yee-run tests/tst_gpu)
OPTIONAL=(tests/tst_nccl tests/tst_kernels)

if ((!REUSE)); then
    launcher=()
    if command -v ccache >/dev/null 2>&1; then
        launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
            -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    fi
    gen=()
    [[ -f $BUILD/CMakeCache.txt ]] || gen=(-G Ninja)
    cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DYEE_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DYEE_BUILD_UI=OFF -DYEE_ENABLE_MPI=OFF -DYEE_WITH_ARPACK=OFF "${launcher[@]}"
    targets=()
    for t in "${REQUIRED[@]}" "${OPTIONAL[@]}"; do targets+=("$(basename "$t")"); done
    help=$(cmake --build "$BUILD" --target help 2>/dev/null || true)
    build=()
    for t in "${targets[@]}"; do
        if grep -Eq "(^|\.\.\. )$t(:| |\$)" <<<"$help"; then build+=("$t"); else echo "gpu-bundle: no target $t"; fi
    done
    cmake --build "$BUILD" --parallel "$JOBS" --target "${build[@]}"
fi

for exe in "${REQUIRED[@]}"; do
    [[ -x $BUILD/$exe ]] || { echo "gpu-bundle: $BUILD/$exe is missing (build it, or drop --reuse)" >&2; exit 1; }
done

rm -rf "$OUTDIR"
mkdir -p "$OUTDIR/scenes"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/lib/compat" "$STAGE/bin"

# ---- programs -----------------------------------------------------------------------------------------------------
EXES=()
for exe in "${REQUIRED[@]}" "${OPTIONAL[@]}"; do
    [[ -x $BUILD/$exe ]] || { echo "gpu-bundle: $exe not built: left out"; continue; }
    cp "$BUILD/$exe" "$STAGE/bin/"
    strip --strip-unneeded "$STAGE/bin/$(basename "$exe")"
    EXES+=("$BUILD/$exe")
done
cp "$ROOT"/resources/scenes/quick_box.json "$OUTDIR/scenes/"
cp "$ROOT"/resources/scenes/straight_waveguide.json "$OUTDIR/scenes/" 2>/dev/null || true

# ---- libraries ----------------------------------------------------------------------------------------------------
is_system() { # the C library family and the driver stay the machine's
    [[ $1 =~ ^(linux-vdso|linux-gate|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libutil\.so|libresolv\.so|libcuda\.so|libnvidia) ]]
}
is_compat() { [[ $1 =~ ^(libstdc\+\+\.so|libgcc_s\.so|libgomp\.so) ]]; }

declare -A SEEN=()
missing=0
curl_users=()
while read -r name path; do
    [[ -n $name ]] || continue
    if [[ $path == "not" ]]; then
        echo "gpu-bundle: library $name: not found" >&2
        missing=1
        continue
    fi
    is_system "$name" && continue
    [[ -n ${SEEN[$name]:-} ]] && continue
    SEEN[$name]=1
    if [[ $name == libcurl.so.* ]]; then
        continue # replaced by the stub below
    fi
    dest=$STAGE/lib
    is_compat "$name" && dest=$STAGE/lib/compat
    cp -L "$path" "$dest/$name"
    chmod u+w "$dest/$name"
    strip --strip-unneeded "$dest/$name" 2>/dev/null || true
done < <(ldd "${EXES[@]}" | awk '/=>/ {print $1, $3}' | sort -u)
((missing == 0)) || { echo "gpu-bundle: some libraries were not found" >&2; exit 1; }

# libcurl stub: every curl_* symbol the packed libraries ask for, returning 0 (NULL handles, CURLE_OK for
# global init), under the version name they ask for, so the dynamic linker prints no version warning.
if [[ -n ${SEEN[libcurl.so.4]:-} ]]; then
    mapfile -t syms < <(for f in "$STAGE"/lib/*.so*; do nm -D --undefined-only "$f" 2>/dev/null; done |
        awk '$2 ~ /^curl_/ {print $2}' | sort -u)
    ver=$(printf '%s\n' "${syms[@]}" | sed -n 's/^[^@]*@\{1,2\}//p' | sort -u | head -n 1)
    {
        echo "/* Stub libcurl for the GPU bundle: HDF5's S3 driver only; never called. */"
        for s in "${syms[@]}"; do echo "long ${s%%@*}(void) { return 0; }"; done
    } >"$STAGE/curlstub.c"
    if [[ -n $ver ]]; then echo "$ver { global: *; };" >"$STAGE/curlstub.map"; else echo "{ global: *; };" >"$STAGE/curlstub.map"; fi
    cc -shared -fPIC -O1 -o "$STAGE/lib/libcurl.so.4" -Wl,-soname,libcurl.so.4 \
        -Wl,--version-script="$STAGE/curlstub.map" "$STAGE/curlstub.c"
    # Libraries only curl needed drop out: keep what the programs and the other libraries still need.
    declare -A NEED=()
    for f in "${EXES[@]}" "$STAGE"/lib/*.so* "$STAGE"/lib/compat/*.so*; do
        while read -r n; do NEED[$n]=1; done < <(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    done
    changed=1
    while ((changed)); do # drop libraries nothing needs, until none drops
        changed=0
        for f in "$STAGE"/lib/*.so*; do
            n=$(basename "$f")
            [[ -n ${NEED[$n]:-} ]] && continue
            rm -f "$f"
            changed=1
        done
        NEED=()
        for f in "${EXES[@]}" "$STAGE"/lib/*.so* "$STAGE"/lib/compat/*.so*; do
            while read -r n; do NEED[$n]=1; done < <(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
        done
    done
fi

# Closure check: with only the bundle's libraries on the path, nothing is missing.
for f in "$STAGE"/bin/*; do
    if LD_LIBRARY_PATH=$STAGE/lib:$STAGE/lib/compat ldd "$f" | grep -q 'not found'; then
        echo "gpu-bundle: $(basename "$f") misses a library in the bundle:" >&2
        LD_LIBRARY_PATH=$STAGE/lib:$STAGE/lib/compat ldd "$f" | grep 'not found' >&2
        exit 1
    fi
done
unpacked=$(du -sb "$STAGE/lib" | cut -f1)
programs=$(du -sb "$STAGE/bin" | cut -f1)
tar -C "$STAGE" -czf "$OUTDIR/lib.tar.gz" lib
tar -C "$STAGE" -czf "$OUTDIR/bin.tar.gz" bin

# ---- runner and manifest ------------------------------------------------------------------------------------------
cp "$ROOT/tests/gpu/bundle-run.sh" "$OUTDIR/run.sh"
chmod +x "$OUTDIR/run.sh"
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD 2>/dev/null || commit="$commit (+ local changes)"
glibcxx=$(for f in "${EXES[@]}"; do objdump -T "$f" 2>/dev/null; done | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -n 1)
{
    echo "commit: $commit"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m) from $BUILD"
    echo "cuda: $(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt" | head -n 1) arch $(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
    echo "enable_cuda: $(sed -n 's/^YEE_ENABLE_CUDA:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
    echo "glibcxx_needed: ${glibcxx:-none}"
    echo "programs: $(cd "$STAGE/bin" && echo *)"
    echo "programs_unpacked_bytes: $programs"
    echo "libraries: $(cd "$STAGE/lib" && ls *.so* | tr '\n' ' ')"
    echo "compat: $(cd "$STAGE/lib/compat" && ls | tr '\n' ' ')"
    echo "libraries_unpacked_bytes: $unpacked"
} >"$OUTDIR/MANIFEST"

bytes=$(du -sb "$OUTDIR" | cut -f1)
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "gpu-bundle: $OUTDIR: $mib MiB ($bytes bytes; libraries $((unpacked / 1048576)) MiB, programs $((programs / 1048576)) MiB unpacked), limit $MAX_MIB MiB"
if ((bytes >= MAX_MIB * 1048576)); then
    echo "gpu-bundle: the bundle is over $MAX_MIB MiB" >&2
    exit 1
fi
