#!/usr/bin/env python3
"""One version number: CITATION.cff's version and CHANGELOG.md's newest release are the
project(VERSION ...) of CMakeLists.txt, and the two files agree on its date. CITATION.cff is
checked against the Citation File Format 1.2.0 rules that apply to it (its top-level keys,
required keys, authors as persons or entities, YYYY-MM-DD dates); CHANGELOG.md keeps Keep a
Changelog's shape. Doctored copies must each be refused, so the check can fail.
Usage: check_release_files.py SOURCE_DIR"""
import copy
import os
import re
import sys

import jsonschema
import yaml

# From the CFF 1.2.0 schema guide: the keys a root document may have, and the required ones.
CFF_KEYS = ["abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi", "identifiers",
            "keywords", "license", "license-url", "message", "preferred-citation", "references", "repository",
            "repository-artifact", "repository-code", "title", "type", "url", "version"]
NONEMPTY = {"type": "string", "minLength": 1}
PERSON = {"type": "object", "minProperties": 1, "properties": {
    k: NONEMPTY for k in ("family-names", "given-names", "name-particle", "name-suffix", "affiliation",
                          "alias", "email", "orcid", "website")}, "additionalProperties": True}
ENTITY = {"type": "object", "required": ["name"], "properties": {"name": NONEMPTY}}
CFF_SCHEMA = {
    "type": "object",
    "required": ["authors", "cff-version", "message", "title"],
    "additionalProperties": False,
    "properties": {
        **{k: {} for k in CFF_KEYS},
        "cff-version": {"const": "1.2.0"},
        "message": NONEMPTY,
        "title": NONEMPTY,
        "abstract": NONEMPTY,
        "type": {"enum": ["software", "dataset"]},
        "version": {"type": ["string", "number"]},
        "date-released": {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "keywords": {"type": "array", "minItems": 1, "items": NONEMPTY},
        "authors": {"type": "array", "minItems": 1, "items": {"anyOf": [
            {"allOf": [PERSON, {"anyOf": [{"required": ["family-names"]}, {"required": ["given-names"]}]}]},
            ENTITY]}},
        "repository-code": {"type": "string", "pattern": "^https?://"},
    },
}
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def check(project_version, cff_text, changelog):
    errors = []
    # CFF is YAML 1.2; PyYAML (1.1) would read an unquoted 2026-11-24 as a date, not a string.
    cff = yaml.load(cff_text, Loader=yaml.BaseLoader)
    errors += [f"CITATION.cff: {e.message} (at {'/'.join(map(str, e.path)) or 'root'})"
               for e in jsonschema.Draft202012Validator(CFF_SCHEMA).iter_errors(cff)]
    if not isinstance(cff, dict):
        return errors
    if str(cff.get("version")) != project_version:
        errors.append(f"CITATION.cff: version {cff.get('version')}, project(VERSION) is {project_version}")
    if not changelog.startswith("# Changelog"):
        errors.append("CHANGELOG.md: does not open with '# Changelog'")
    if "## [Unreleased]" not in changelog:
        errors.append("CHANGELOG.md: no '## [Unreleased]' section")
    releases = RELEASE.findall(changelog)
    if not releases:
        errors.append("CHANGELOG.md: no '## [X.Y.Z] - YYYY-MM-DD' release")
        return errors
    newest, date = releases[0]
    if newest != project_version:
        errors.append(f"CHANGELOG.md: newest release {newest}, project(VERSION) is {project_version}")
    if cff.get("date-released") and cff["date-released"] != date:
        errors.append(f"CITATION.cff: date-released {cff['date-released']}, CHANGELOG.md says {date}")
    return errors


def main():
    src = sys.argv[1]
    cmake = open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8").read()
    found = re.search(r"^project\([^)]*\bVERSION\s+(\d+\.\d+\.\d+)", cmake, re.M)
    if not found:
        print("FAIL: no project(VERSION X.Y.Z) in CMakeLists.txt")
        return 1
    version = found.group(1)
    cff_text = open(os.path.join(src, "CITATION.cff"), encoding="utf-8").read()
    changelog = open(os.path.join(src, "CHANGELOG.md"), encoding="utf-8").read()
    errors = check(version, cff_text, changelog)
    cff = yaml.load(cff_text, Loader=yaml.BaseLoader)
    broken = []
    for key, value in [("version", "9.9.9"), ("cff-version", "1.1.0"), ("authors", []), ("citation", "x"),
                       ("date-released", "24.11.2026"), ("authors", [{"orcid": "x"}])]:
        doctored = copy.deepcopy(cff)
        doctored[key] = value
        broken.append((f"CITATION.cff with {key}: {value!r}", yaml.safe_dump(doctored), changelog))
    broken.append(("a changelog behind the version", cff_text, changelog.replace(f"## [{version}]", "## [0.0.1]")))
    broken.append(("a changelog without Unreleased", cff_text, changelog.replace("## [Unreleased]", "")))
    for what, cff_copy, changelog_copy in broken:
        if not check(version, cff_copy, changelog_copy):
            errors.append(f"self-test: {what} passes the check")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print(f"PASS: version {version} in CMakeLists.txt, CITATION.cff and CHANGELOG.md")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
