#!/usr/bin/env python3
"""packaging/spack/package.py against the project's CMake files, without Spack: every CMake
option the recipe sets (define / define_from_variant, CMAKE_* aside) is an option() or CACHE
variable of CMakeLists.txt, cmake/*.cmake, src/ or tests/; every variant it reads is declared;
the class, the MPI/CUDA/ROCm/tests variants, a Kokkos per cuda_arch and the cuda_arch=none
conflict are there. Then doctored copies of the recipe must each be refused, so the check can
fail. Usage: check_spack_recipe.py RECIPE SOURCE_DIR"""
import ast
import glob
import os
import re
import sys

# Variants the base classes declare (CudaPackage, ROCmPackage).
INHERITED_VARIANTS = {"cuda", "cuda_arch", "rocm", "amdgpu_target"}
REQUIRED_BASES = {"CMakePackage", "CudaPackage", "ROCmPackage"}
REQUIRED_VARIANTS = {"mpi", "cuda", "rocm", "tests"}


def cmake_options(source_dir):
    """Names declared by option(NAME ...) or set(NAME ... CACHE ...) in the project's CMake."""
    files = [os.path.join(source_dir, "CMakeLists.txt")]
    files += glob.glob(os.path.join(source_dir, "cmake", "*.cmake"))
    files += [os.path.join(source_dir, d, "CMakeLists.txt") for d in ("src", "tests")]
    names = set()
    for path in files:
        if not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8").read()
        names.update(re.findall(r"^\s*option\(\s*([A-Za-z_][A-Za-z0-9_]*)", text, re.M))
        names.update(re.findall(r"^\s*set\(\s*([A-Za-z_][A-Za-z0-9_]*)\b[^)]*\bCACHE\b", text, re.M))
    return names


def string_arg(call, index):
    if len(call.args) > index and isinstance(call.args[index], ast.Constant):
        value = call.args[index].value
        return value if isinstance(value, str) else None
    return None


def check(recipe_text, options):
    """The list of problems with one recipe text."""
    try:
        tree = ast.parse(recipe_text)
    except SyntaxError as e:
        return [f"not Python: {e}"]
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) != 1:
        return [f"expected one package class, found {len(classes)}"]
    cls = classes[0]
    errors = []
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    if not REQUIRED_BASES <= bases:
        errors.append(f"class {cls.name} lacks base(s) {sorted(REQUIRED_BASES - bases)}")
    calls = [n for n in ast.walk(cls) if isinstance(n, ast.Call)]
    named = lambda c, name: isinstance(c.func, ast.Name) and c.func.id == name  # noqa: E731
    method = lambda c, name: isinstance(c.func, ast.Attribute) and c.func.attr == name  # noqa: E731
    variants = {string_arg(c, 0) for c in calls if named(c, "variant")} | INHERITED_VARIANTS
    for missing in sorted(REQUIRED_VARIANTS - variants):
        errors.append(f"no '{missing}' variant")
    set_options = []
    for c in calls:
        if method(c, "define_from_variant"):
            option, variant = string_arg(c, 0), string_arg(c, 1)
            if option is None or variant is None:
                errors.append(f"define_from_variant without literal names: {ast.unparse(c)}")
                continue
            if variant not in variants:
                errors.append(f"define_from_variant('{option}', '{variant}'): no variant '{variant}'")
            set_options.append(option)
        elif method(c, "define"):
            option = string_arg(c, 0)
            if option is None:
                errors.append(f"define without a literal name: {ast.unparse(c)}")
                continue
            set_options.append(option)
    if not set_options:
        errors.append("the recipe sets no CMake option")
    for option in set_options:
        if not option.startswith("CMAKE_") and option not in options:
            errors.append(f"CMake option {option} is set by the recipe but declared nowhere in the project's CMake")
    # One Kokkos per CUDA architecture, each built with the nvcc wrapper.
    loops = [n for n in ast.walk(cls) if isinstance(n, ast.For) and "cuda_arch_values" in ast.unparse(n.iter)]
    per_arch = [ast.unparse(c) for loop in loops for c in ast.walk(loop)
                if isinstance(c, ast.Call) and named(c, "depends_on")]
    if not any("kokkos+cuda+wrapper cuda_arch=" in d and "+cuda cuda_arch=" in d for d in per_arch):
        errors.append("no depends_on('kokkos+cuda+wrapper cuda_arch=X', when='+cuda cuda_arch=X') per cuda_arch")
    conflicts = [(string_arg(c, 0), {k.arg: ast.unparse(k.value) for k in c.keywords})
                 for c in calls if named(c, "conflicts")]
    if not any(what == "+cuda" and kw.get("when") == "'cuda_arch=none'" for what, kw in conflicts):
        errors.append("no conflicts('+cuda', when='cuda_arch=none')")
    return errors


def doctored(recipe_text):
    """(what, text) pairs: copies of the recipe that check() must refuse."""
    define = 'self.define_from_variant("MINIGPU_ENABLE_TESTS", "tests")'
    conflict = 'conflicts("+cuda", when="cuda_arch=none"'
    return [
        ("an option CMake does not have", recipe_text.replace(define, 'self.define_from_variant("MINIGPU_NO_SUCH", "tests")')),
        ("a variant the recipe does not declare", recipe_text.replace(define, 'self.define_from_variant("MINIGPU_ENABLE_TESTS", "testz")')),
        ("a plain define of an unknown option", recipe_text.replace(define, define + ', self.define("MINIGPU_TYPO", True)')),
        ("no cuda_arch=none conflict", recipe_text.replace(conflict, 'conflicts("+cuda", when="cuda_arch=80"')),
        ("no kokkos per cuda_arch", recipe_text.replace("kokkos+cuda+wrapper", "kokkos+cuda")),
        ("no ROCmPackage base", recipe_text.replace(", ROCmPackage)", ")")),
    ]


def main():
    recipe_path, source_dir = sys.argv[1:3]
    recipe_text = open(recipe_path, encoding="utf-8").read()
    options = cmake_options(source_dir)
    errors = [f"{recipe_path}: {e}" for e in check(recipe_text, options)]
    for what, text in doctored(recipe_text):
        if text == recipe_text:
            errors.append(f"self-test: could not make a copy with {what} (the recipe changed shape?)")
        elif not check(text, options):
            errors.append(f"self-test: a recipe with {what} passes the check")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print(f"PASS: {recipe_path} sets only options the project's CMake declares ({len(options)} declared)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
