"""The type stubs describe the module as built: every public name of the extension is in
_leasehold.pyi and every name there exists, for the module's functions and classes and for
each class's methods and properties (what editors and mypy rely on)."""

import ast
from pathlib import Path

import leasehold
from leasehold import _leasehold


def stub_tree():
    stub = Path(_leasehold.__file__).with_name("_leasehold.pyi")
    assert stub.is_file(), f"{stub}: the stub is not installed beside the module"
    return ast.parse(stub.read_text(), filename=str(stub))


def public(names):
    return {n for n in names if not n.startswith("_")}


def members(node):
    """The names a module or class body of the stub defines."""
    names = set()
    for member in node.body:
        if isinstance(member, (ast.ClassDef, ast.FunctionDef)):
            names.add(member.name)
        elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
            names.add(member.target.id)
        elif isinstance(member, ast.Assign):
            names.update(t.id for t in member.targets if isinstance(t, ast.Name))
    return names


def stub_classes(tree):
    """Each stubbed class's members, with those of its stub base classes (such as the
    stub-only _ScalarProfile the backends share)."""
    nodes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def resolve(name):
        node = nodes[name]
        names = members(node)
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in nodes:
                names |= resolve(base.id)
        return names

    return {name: resolve(name) for name in nodes}


def test_module_names_match_the_stub():
    tree = stub_tree()
    stubbed = members(tree)
    # Stub-only helpers (protocols, private base classes, aliases for annotations) need not
    # exist at run time.
    helpers = {node.name for node in tree.body
               if isinstance(node, ast.ClassDef) and any(
                   isinstance(b, ast.Name) and b.id == "Protocol" for b in node.bases)}
    helpers |= {name for name in stubbed if name.startswith("_")}
    helpers |= {t.id for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name) and t.id[0].isupper()}
    module = public(dir(_leasehold))
    assert sorted(module - stubbed) == [], "in the module but not in the stub"
    assert sorted(stubbed - helpers - module) == [], "in the stub but not in the module"


def test_class_members_match_the_stub():
    for name, stubbed in stub_classes(stub_tree()).items():
        if not hasattr(_leasehold, name):
            continue
        cls = getattr(_leasehold, name)
        stubbed = {m for m in stubbed if not m.startswith("_")}
        actual = public(dir(cls))
        if issubclass(cls, BaseException):
            actual -= public(dir(BaseException))
        # pybind11 enums carry name/value and their own helpers.
        if hasattr(cls, "__members__"):
            actual = set(cls.__members__)
            stubbed -= {"name", "value"}
        assert sorted(actual - stubbed) == [], f"{name}: in the module, not in the stub"
        assert sorted(stubbed - actual) == [], f"{name}: in the stub, not in the module"


def test_package_reexports_the_module():
    for name in public(dir(_leasehold)):
        assert getattr(leasehold, name) is getattr(_leasehold, name)
