"""The cached build inputs no Debian package ships: android.jar, dx, a pre-dexed Kotlin runtime
and the debug signing key.

`android_jar()` generates an API-29 `android.jar` once: it fetches the Debian source package
`android-platform-frameworks-base` with `apt-get source --download-only` (through a private apt
configuration, so no root and no change to the system's sources), reads `api/current.txt`, writes
Java stubs (`stubs`), compiles them with javac and adds Debian's `framework-res.apk`. Everything
lives in `toolchain.cache_dir()` (default `~/.cache/phoneworld/`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path

from phoneworld.android.apisig import parse_api
from phoneworld.android.stubs import StubWriter
from phoneworld.android.toolchain import BUILDER_JAR, cache_dir, require, run
from phoneworld.errors import ToolchainError

log = logging.getLogger(__name__)

API_LEVEL = 29
SOURCE_PACKAGE = "android-platform-frameworks-base"
DX_PACKAGE = "libgradle-android-plugin-java"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
GENERATOR_VERSION = "1"  # bump to regenerate cached android.jar files
STORE_PASS = "android"


def _mirror() -> tuple[str, str]:
    return (os.environ.get("PHONEWORLD_DEBIAN_MIRROR", "http://deb.debian.org/debian"),
            os.environ.get("PHONEWORLD_DEBIAN_SUITE", "bookworm"))


class PrivateApt:
    """apt-get with its own sources, lists and cache under `root`: downloads only, no root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        mirror, suite = _mirror()
        signed = f"[signed-by={KEYRING}] " if Path(KEYRING).exists() else ""
        (root / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (root / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (root / "sources.list").write_text(
            f"deb {signed}{mirror} {suite} main\ndeb-src {signed}{mirror} {suite} main\n")
        self.updated = False

    def _apt(self, *args: str, cwd: Path | None = None) -> str:
        r = self.root
        opts = [
            f"-oDir::Etc::SourceList={r / 'sources.list'}", "-oDir::Etc::SourceParts=/nonexistent",
            f"-oDir::State::Lists={r / 'lists'}", f"-oDir::Cache={r / 'cache'}",
            "-oDebug::NoLocking=1", "-oAcquire::Languages=none", "-qq",
        ]
        return run(["apt-get", *opts, *args], f"apt-get {args[0]}", cwd=cwd, java=False)

    def fetch(self, what: str, package: str, dest: Path) -> None:
        """`apt-get download PACKAGE` (what="download") or `apt-get source --download-only`."""
        if not self.updated:
            self._apt("update")
            self.updated = True
        dest.mkdir(parents=True, exist_ok=True)
        if what == "source":
            self._apt("source", "--download-only", package, cwd=dest)
        else:
            self._apt("download", package, cwd=dest)


def api_signature_file(apt: PrivateApt | None = None) -> Path:
    """`api/current.txt` of the platform source package (fetched once, then cached)."""
    target = cache_dir() / "platform" / f"android-{API_LEVEL}-current.txt"
    if target.exists():
        return target
    require("apt-get")
    with tempfile.TemporaryDirectory(prefix="pw-src-") as tmp:
        apt = apt or PrivateApt(cache_dir() / "apt")
        apt.fetch("source", SOURCE_PACKAGE, Path(tmp))
        tarballs = sorted(Path(tmp).glob(f"{SOURCE_PACKAGE}_*.orig.tar.*"))
        if not tarballs:
            raise ToolchainError(f"apt-get source {SOURCE_PACKAGE} gave no .orig tarball in {tmp}")
        with tarfile.open(tarballs[0]) as tar:
            member = tar.extractfile("api/current.txt")
            if member is None:
                raise ToolchainError(f"{tarballs[0].name} has no api/current.txt")
            text = member.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_target = target.with_suffix(".tmp")
    tmp_target.write_bytes(text)
    os.replace(tmp_target, target)
    return target


def jdk_packages() -> set[str]:
    """The Java packages the JDK provides (their android.jar stubs would only shadow them)."""
    tools = require("jimage", "java")
    modules = tools["java"].resolve().parent.parent / "lib" / "modules"
    out = run([tools["jimage"], "list", modules], "jimage list")
    return {line.strip().rsplit("/", 1)[0].replace("/", ".")
            for line in out.splitlines() if line.strip().endswith(".class") and "/" in line}


def android_jar() -> Path:
    """The cached API-29 android.jar, generated on first use (about 30 s and a 45 MB download)."""
    target = cache_dir() / "platform" / f"android-{API_LEVEL}" / "android.jar"
    stamp = target.with_name("generator.txt")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == GENERATOR_VERSION:
        return target
    tools = require("javac", "framework-res")
    api = api_signature_file()
    classes = parse_api(api.read_text(encoding="utf-8"))
    jdk = jdk_packages()
    sources = StubWriter(classes).sources(lambda p: p not in jdk)
    log.info("android.jar: %d stub files from %s", len(sources), api)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pw-stubs-", dir=target.parent) as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "classes"
        files = []
        for rel, text in sources.items():
            path = src / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
        (Path(tmp) / "files.txt").write_text("\n".join(files))
        out.mkdir()
        run([tools["javac"], "--release", "8", "-nowarn", "-Xlint:none", "-encoding", "UTF-8",
             "-J-Xmx1g", "-d", out, f"@{Path(tmp) / 'files.txt'}"], "javac (android.jar stubs)")
        jar = Path(tmp) / "android.jar"
        _write_jar(jar, out, tools["framework-res"])
        os.replace(jar, target)
    stamp.write_text(GENERATOR_VERSION + "\n")
    return target


def _write_jar(jar: Path, classes: Path, framework_res: Path) -> None:
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(classes.rglob("*.class")):
            z.write(path, path.relative_to(classes).as_posix())
        with zipfile.ZipFile(framework_res) as res:
            for info in res.infolist():
                if info.filename.startswith("META-INF/"):
                    continue
                # aapt2 maps resources.arsc: it must be stored, not deflated
                kind = zipfile.ZIP_STORED if info.filename == "resources.arsc" else zipfile.ZIP_DEFLATED
                z.writestr(info.filename, res.read(info.filename), compress_type=kind)


def fetch_dx() -> Path:
    """The builder jar holding dx: installed system-wide, or downloaded into the cache."""
    installed = Path("/usr/share/java") / BUILDER_JAR
    if installed.exists():
        return installed
    target = cache_dir() / "tools" / BUILDER_JAR
    if target.exists():
        return target
    tools = require("apt-get", "dpkg-deb")
    with tempfile.TemporaryDirectory(prefix="pw-dx-") as tmp:
        PrivateApt(cache_dir() / "apt").fetch("download", DX_PACKAGE, Path(tmp))
        debs = sorted(Path(tmp).glob(f"{DX_PACKAGE}_*.deb"))
        if not debs:
            raise ToolchainError(f"apt-get download {DX_PACKAGE} gave no .deb in {tmp}")
        run([tools["dpkg-deb"], "-x", debs[0], Path(tmp) / "x"], "dpkg-deb -x", java=False)
        jar = Path(tmp) / "x" / "usr" / "share" / "java" / BUILDER_JAR
        if not jar.exists():
            raise ToolchainError(f"{debs[0].name} has no {BUILDER_JAR}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(jar, target.with_suffix(".tmp"))
        os.replace(target.with_suffix(".tmp"), target)
    return target


def dx_command(*args: str | Path) -> list[str | Path]:
    tools = require("java", "guava")
    return [tools["java"], "-Xmx1g", "-cp", f"{fetch_dx()}{os.pathsep}{tools['guava']}", *args]


def stdlib_dex() -> Path:
    """The Kotlin runtime dexed once (dx takes ~10 s on it), keyed by the jar's content."""
    jar = require("kotlin-stdlib")["kotlin-stdlib"]
    digest = hashlib.sha256(jar.read_bytes()).hexdigest()[:16]
    target = cache_dir() / "dex" / f"kotlin-stdlib-{digest}.dex"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp.dex")
    run(dx_command("com.android.dx.command.Main", "--dex", f"--output={tmp}", jar), "dx (kotlin-stdlib)")
    os.replace(tmp, target)
    return target


def debug_keystore() -> Path:
    """The debug signing key (made once with keytool, like Android Studio's)."""
    target = cache_dir() / "debug.keystore"
    if target.exists():
        return target
    keytool = require("keytool")["keytool"]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    run([keytool, "-genkeypair", "-keystore", tmp, "-storepass", STORE_PASS, "-keypass", STORE_PASS,
         "-alias", "androiddebugkey", "-keyalg", "RSA", "-keysize", "2048", "-validity", "10000",
         "-dname", "CN=Android Debug,O=Android,C=US"], "keytool -genkeypair")
    os.replace(tmp, target)
    return target
