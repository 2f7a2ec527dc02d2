#!/usr/bin/env bash
# Stages Debian's Open MPI (openmpi-bin, libopenmpi3, libpmix2) into one relocatable directory, for a
# machine without the packages (the lent GPU machine): mpirun, its libraries and every library they load
# (glibc's own excepted), the MCA plugins, the help files, and env.sh that points Open MPI and PMIx at the
# new place. Run on the Debian machine that has the packages:
#   bench/stage_openmpi.sh DIR            then, on the other machine:  source DIR/env.sh; mpirun ...
# What mpirun needs at run time (ldd $(which mpirun) and Open MPI's install paths, `ompi_info --path all`):
#   bin:     /usr/bin/orterun (mpirun, mpiexec), /usr/bin/orted (only for launches on other nodes)
#   libs:    libmpi, libopen-rte, libopen-pal (.so.40), libmpi_cxx.so.40 (nbody links it), libpmix.so.2,
#            libhwloc.so.15, libevent_core/pthreads-2.1.so.7, libudev.so.1, libz.so.1 and their deps
#   plugins: /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_*.so (Pkglibdir), PMIx's in pmix2/lib/pmix
#   help:    /usr/share/openmpi/help-*.txt (Pkgdatadir; without them errors print "help file not found")
#   config:  /etc/openmpi/openmpi-mca-params.conf (Sysconfdir)
# and the environment: OPAL_PREFIX (Open MPI derives every other install path from it; the OPAL_*DIR
# variables below pin the Debian-specific ones), PMIX_INSTALL_PREFIX, PATH, LD_LIBRARY_PATH.
set -euo pipefail
dest=${1:?usage: stage_openmpi.sh DIR}
multiarch=x86_64-linux-gnu
ompi_lib=/usr/lib/$multiarch/openmpi/lib
mkdir -p "$dest"/{bin,lib,etc}
dest=$(cd "$dest" && pwd)

cp -L /usr/bin/orterun "$dest/bin/orterun"
cp -L /usr/bin/orted "$dest/bin/orted"
ln -sf orterun "$dest/bin/mpirun"
ln -sf orterun "$dest/bin/mpiexec"

# Plugins and help files in the layout Open MPI expects under its prefix.
mkdir -p "$dest/lib/openmpi3" "$dest/share/openmpi" "$dest/pmix/lib/pmix" "$dest/pmix/share"
cp -L "$ompi_lib"/openmpi3/*.so "$dest/lib/openmpi3/"
cp -rL /usr/share/openmpi/. "$dest/share/openmpi/"
cp -L /usr/lib/$multiarch/pmix2/lib/pmix/*.so "$dest/pmix/lib/pmix/"
cp -rL /usr/lib/$multiarch/pmix2/share/. "$dest/pmix/share/"
cp -L /etc/openmpi/openmpi-mca-params.conf "$dest/etc/"

# Every shared library mpirun, orted, libmpi (what nbody loads) and the plugins need, except glibc's.
is_glibc() {
    case "$(basename "$1")" in
        libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux* | libresolv.so* | \
            libutil.so* | libgcc_s.so* | libstdc++.so*) return 0 ;;
    esac
    return 1
}
objects=("$dest/bin/orterun" "$dest/bin/orted" /usr/lib/$multiarch/libmpi.so.40 /usr/lib/$multiarch/libmpi_cxx.so.40
         "$dest"/lib/openmpi3/*.so "$dest"/pmix/lib/pmix/*.so)
missing=0
for obj in "${objects[@]}"; do
    while read -r name arrow path _; do
        [[ "$arrow" == "=>" ]] || continue
        if [[ "$path" == "not" ]]; then
            echo "stage_openmpi: note: $(basename "$obj") needs $name, not installed here (that plugin will not load)" >&2
            missing=1
            continue
        fi
        is_glibc "$path" && continue
        [[ -e "$dest/lib/$name" ]] || cp -L "$path" "$dest/lib/$name"
    done < <(ldd "$obj" 2>/dev/null)
done
cp -L /usr/lib/$multiarch/libmpi.so.40 /usr/lib/$multiarch/libmpi_cxx.so.40 "$dest/lib/"

cat >"$dest/env.sh" <<ENV
# Source this to use the Open MPI staged in this directory (moved anywhere: paths are relative to it).
here=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX="\$here"
export OPAL_BINDIR="\$here/bin" OPAL_LIBDIR="\$here/lib" OPAL_PKGLIBDIR="\$here/lib/openmpi3"
export OPAL_DATAROOTDIR="\$here/share" OPAL_DATADIR="\$here/share" OPAL_PKGDATADIR="\$here/share/openmpi"
export OPAL_SYSCONFDIR="\$here/etc"
export PMIX_INSTALL_PREFIX="\$here/pmix" PMIX_MCA_mca_base_component_path="\$here/pmix/lib/pmix"
export PATH="\$here/bin:\$PATH" LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
ENV
echo "staged Open MPI in $dest ($(du -sh "$dest" | cut -f1)); use: source $dest/env.sh" >&2
exit 0
