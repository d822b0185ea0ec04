# Spack recipe for miniGPU. Copy it into a Spack package repository of your own, as
# packages/minigpu/package.py (made by `spack repo create DIR NAMESPACE`; Spack 1.x nests it under
# spack_repo/NAMESPACE/), `spack repo add DIR`, then:
#   spack install minigpu ~cuda                      # host only (Kokkos Serial or OpenMP)
#   spack install minigpu +cuda cuda_arch=90         # H100: Kokkos built for sm_90 with nvcc_wrapper
#   spack install minigpu +rocm amdgpu_target=gfx90a
# tests/e2e/check_spack_recipe.py checks that every CMake option set here exists in the project.

from spack.package import *

try:  # Package API v2 (Spack 1.x): the build systems live in Spack's builtin repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # Package API v1 (Spack 0.x): spack.package exports them
    pass


class Minigpu(CMakePackage, CudaPackage, ROCmPackage):
    """miniGPU: the "GPUs" chapter of Dive into Deep Learning as HPC experiments on Kokkos and
    MPI (devices, transfers, lazy execution, matmul, multi-GPU concurrency, distributed scaling),
    every result verified and timed with confidence intervals."""

    homepage = "https://github.com/minigpu/minigpu"
    git = "https://github.com/minigpu/minigpu.git"

    # No license() directive: the repository carries no licence file yet.

    version("main", branch="main")

    # MPI is not optional in the code (the comm/ layer and every multi-rank experiment use it);
    # the variant exists so specs read as for other mini-apps, and ~mpi is refused with the reason.
    variant("mpi", default=True, description="MPI (required: miniGPU always builds with MPI)")
    conflicts("~mpi", msg="miniGPU's comm/ layer and its distributed experiments need MPI")
    variant("tests", default=False, description="Build the GoogleTest suite and register the ctest tests")
    variant("scalapack", default=False, description="ScaLAPACK for matmul_scaling's scalapack decomposition")
    variant("native", default=False, description="Compile host code with -march=native (Spack sets targets)")
    variant("onednn", default=True, description="oneDNN for the host's vendor bfloat16 matmul (AVX512_BF16 CPUs)")
    variant("cxxstd", default="17", values=("17", "20"), multi=False, description="C++ standard")

    depends_on("cmake@3.16:", type="build")
    depends_on("mpi")
    depends_on("kokkos@3.4:")
    conflicts("cxxstd=17", when="^kokkos@5:", msg="Kokkos 5 requires C++20: cxxstd=20")
    depends_on("openblas")  # CBLAS for the host vendor matmul (cmake/MiniGPUHostBlas.cmake)
    depends_on("yaml-cpp")
    depends_on("cli11")
    depends_on("nlohmann-json@3:")
    depends_on("scalapack", when="+scalapack")
    depends_on("onednn", when="+onednn")
    depends_on("googletest", when="+tests")
    depends_on("python@3:", type=("build", "test"), when="+tests")
    depends_on("py-jsonschema", type="test", when="+tests")
    depends_on("py-pyyaml", type="test", when="+tests")
    # `minigpu run --plot` runs the installed share/minigpu/scripts/plot.py.
    depends_on("py-matplotlib", type="run")

    # The GPU backend is Kokkos's: one Kokkos per architecture, built with its nvcc wrapper for
    # CUDA so this package's C++ compiles through it too; a host-only miniGPU wants a host Kokkos.
    depends_on("kokkos~cuda", when="~cuda")
    depends_on("kokkos~rocm", when="~rocm")
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda+wrapper cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:3")  # KOKKOS_LAMBDA on CUDA, Kokkos 3
    conflicts("+cuda", when="cuda_arch=none", msg="name the GPU: cuda_arch=90 for H100, 80 for A100")
    for _target in ROCmPackage.amdgpu_targets:
        depends_on(f"kokkos+rocm amdgpu_target={_target}", when=f"+rocm amdgpu_target={_target}")
    conflicts("+rocm", when="amdgpu_target=none", msg="name the GPU: amdgpu_target=gfx90a for MI250X")
    conflicts("+cuda", when="+rocm", msg="one GPU backend per build")

    def cmake_args(self):
        args = [
            self.define_from_variant("MINIGPU_ENABLE_TESTS", "tests"),
            self.define_from_variant("MINIGPU_ENABLE_SCALAPACK", "scalapack"),
            self.define_from_variant("MINIGPU_NATIVE_ARCH", "native"),
            self.define_from_variant("MINIGPU_ONEDNN", "onednn"),
            self.define_from_variant("MINIGPU_CXX_STANDARD", "cxxstd"),
        ]
        if self.spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self.spec["kokkos"].kokkos_cxx))
        if self.spec.satisfies("+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", self.spec["hip"].hipcc))
        return args

    def test_installed(self):
        """the installed minigpu: its version, its data directory, a dry run of an example input"""
        minigpu = which(self.prefix.bin.minigpu)
        out = minigpu("--version", output=str.split, error=str.split)
        assert "(installed)" in out, out
        minigpu("run", "quickstart.yaml", "--dry-run", output=str.split, error=str.split)
