"""A PEP 517 build backend on the standard library alone, for the pure-Python package
`vramplan` (a ctypes binding: no compiled extension). It writes a py3-none-any wheel with
the package's .py files and its metadata, an sdist, and an editable wheel (PEP 660) that
points at this folder. pip needs nothing from an index to use it.

The version is the library's: `project(... version: 'X.Y.Z')` in the meson.build two
folders up, or the PKG-INFO of an sdist.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bindings/python
PACKAGE = 'vramplan'


def _project():
    """name, description, requires-python, license text from pyproject.toml's [project]."""
    text = open(os.path.join(HERE, 'pyproject.toml'), encoding='utf-8').read()
    try:
        import tomllib
        p = tomllib.loads(text)['project']
        lic = p.get('license', {})
        return {'name': p['name'], 'description': p.get('description', ''),
                'requires-python': p.get('requires-python', ''),
                'license': lic.get('text', '') if isinstance(lic, dict) else str(lic)}
    except ImportError:  # Python < 3.11: the few one-line keys this file uses
        out, section = {}, None
        for line in text.splitlines():
            m = re.match(r'\s*\[([^\]]+)\]', line)
            if m:
                section = m.group(1).strip()
                continue
            m = re.match(r'\s*([A-Za-z-]+)\s*=\s*(.*)$', line)
            if section == 'project' and m:
                v = m.group(2)
                s = re.search(r'"((?:[^"\\]|\\.)*)"', v)
                if s:
                    out[m.group(1)] = s.group(1)
        out.setdefault('license', 'MIT')
        return out


def _version():
    meson = os.path.join(HERE, '..', '..', 'meson.build')
    if os.path.exists(meson):
        m = re.search(r"project\([^)]*?version\s*:\s*'([^']+)'", open(meson, encoding='utf-8').read(),
                      re.S)
        if m:
            return m.group(1)
    pkg = os.path.join(HERE, 'PKG-INFO')
    if os.path.exists(pkg):
        m = re.search(r'^Version: (\S+)', open(pkg, encoding='utf-8').read(), re.M)
        if m:
            return m.group(1)
    raise RuntimeError('no version: neither ../../meson.build nor PKG-INFO')


def _metadata():
    p = _project()
    lines = ['Metadata-Version: 2.1', 'Name: ' + p['name'], 'Version: ' + _version(),
             'Summary: ' + p.get('description', '')]
    if p.get('requires-python'):
        lines.append('Requires-Python: ' + p['requires-python'])
    if p.get('license'):
        lines.append('License: ' + p['license'])
    return '\n'.join(lines) + '\n'


def _sources():
    """The package's files, relative to HERE, sorted (tests and caches excluded)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(HERE, PACKAGE)):
        dirnames[:] = sorted(d for d in dirnames if d != '__pycache__')
        for f in sorted(filenames):
            if f.endswith('.py'):
                out.append(os.path.relpath(os.path.join(dirpath, f), HERE))
    return out


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
    return '%s,sha256=%s,%d' % (name, digest, len(data))


def _wheel(wheel_directory, files):
    """files: [(archive name, bytes)]; adds the dist-info and returns the wheel's name."""
    name, version = _project()['name'], _version()
    dist = '%s-%s.dist-info' % (name, version)
    files = list(files) + [
        (dist + '/METADATA', _metadata().encode()),
        (dist + '/WHEEL', b'Wheel-Version: 1.0\nGenerator: vramplan_build\nRoot-Is-Purelib: true\n'
                          b'Tag: py3-none-any\n'),
        (dist + '/top_level.txt', (PACKAGE + '\n').encode()),
    ]
    record = [_record_line(n, d) for n, d in files] + [dist + '/RECORD,,']
    files.append((dist + '/RECORD', ('\n'.join(record) + '\n').encode()))
    whl = '%s-%s-py3-none-any.whl' % (name, version)
    with zipfile.ZipFile(os.path.join(wheel_directory, whl), 'w', zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
    return whl


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for rel in _sources():
        with open(os.path.join(HERE, rel), 'rb') as f:
            files.append((rel.replace(os.sep, '/'), f.read()))
    return _wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [('_vramplan_editable.pth', (HERE + '\n').encode())])


def build_sdist(sdist_directory, config_settings=None):
    name, version = _project()['name'], _version()
    base = '%s-%s' % (name, version)
    out = base + '.tar.gz'
    with tarfile.open(os.path.join(sdist_directory, out), 'w:gz', format=tarfile.PAX_FORMAT) as t:
        def add(rel, data):
            info = tarfile.TarInfo(base + '/' + rel.replace(os.sep, '/'))
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            t.addfile(info, io.BytesIO(data))
        for rel in ['pyproject.toml', os.path.join('_build', 'vramplan_build.py')] + _sources():
            with open(os.path.join(HERE, rel), 'rb') as f:
                add(rel, f.read())
        add('PKG-INFO', _metadata().encode())
    return out
