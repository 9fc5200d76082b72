"""The offline Android toolchain: where each tool is, how to install it, and how to run it.

Every tool comes from Debian bookworm `main` (see ../shared/research/apk-toolchain.md): JDK 17
(kotlinc 1.3 does not run on newer JDKs), kotlinc, aapt2, zipalign, apksigner, guava and
framework-res; the dexer (dx) is the one bundled in `libgradle-android-plugin-java`'s builder jar,
which `platform.fetch_dx` downloads into the cache when the package is not installed. Subprocess
failures are wrapped once, here, in a `ToolchainError` with the command, exit code and log tail.
"""

from __future__ import annotations

import glob
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from phoneworld.errors import ToolchainError

log = logging.getLogger(__name__)

DEBIAN_PACKAGES = ("default-jdk-headless", "kotlin", "aapt", "zipalign", "apksigner",
                   "android-framework-res", "libguava-java", "dexdump")
BUILDER_JAR = "com.android.tools.build.builder-2.2.2.jar"
TAIL_CHARS = 3000


def cache_dir() -> Path:
    """Where generated platforms, tools and keys are kept (outside the repo)."""
    env = os.environ.get("PHONEWORLD_CACHE")
    base = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "phoneworld"
    return base


@dataclass(frozen=True)
class Tool:
    name: str
    path: Path | None
    package: str  # the Debian package that provides it
    purpose: str

    @property
    def found(self) -> bool:
        return self.path is not None

    def hint(self) -> str:
        if self.name == "dx":
            return ("apt-get download libgradle-android-plugin-java (phoneworld fetches it into "
                    f"{cache_dir() / 'tools'} on first use)")
        return f"sudo apt-get install {self.package}"


def java_home() -> Path | None:
    """A JDK 17 (kotlinc 1.3.31 fails on JDK 25: `IllegalArgumentException: 25.0.3`)."""
    env = os.environ.get("PHONEWORLD_JAVA_HOME")
    candidates = [Path(env)] if env else []
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/jvm/java-17-openjdk*"))]
    for home in candidates:
        if (home / "bin" / "java").exists() and (home / "bin" / "javac").exists():
            return home
    return None


def _which(name: str) -> Path | None:
    found = shutil.which(name)
    return Path(found) if found else None


def _first(*paths: str | Path) -> Path | None:
    return next((Path(p) for p in paths if Path(p).exists()), None)


def kotlin_stdlib() -> Path | None:
    kotlinc = _which("kotlinc")
    home_lib = kotlinc.resolve().parent.parent / "lib" / "kotlin-stdlib.jar" if kotlinc else None
    return _first(*(p for p in ("/usr/share/java/kotlin-stdlib.jar", home_lib) if p))


def dx_jar() -> Path | None:
    return _first(f"/usr/share/java/{BUILDER_JAR}", cache_dir() / "tools" / BUILDER_JAR)


def tools() -> dict[str, Tool]:
    """Every tool the Android output uses, found or not."""
    home = java_home()
    jdk = (lambda n: home / "bin" / n if home and (home / "bin" / n).exists() else None)
    return {t.name: t for t in (
        Tool("java", jdk("java"), "default-jdk-headless", "runs kotlinc, dx and the JVM tests (JDK 17)"),
        Tool("javac", jdk("javac"), "default-jdk-headless", "compiles android.jar stubs and R.java"),
        Tool("keytool", jdk("keytool"), "default-jdk-headless", "makes the debug signing key"),
        Tool("jimage", jdk("jimage"), "default-jdk-headless", "lists the JDK's packages"),
        Tool("kotlinc", _which("kotlinc"), "kotlin", "compiles the app (Kotlin 1.3)"),
        Tool("kotlin-stdlib", kotlin_stdlib(), "kotlin", "the Kotlin runtime packed into the APK"),
        Tool("aapt2", _which("aapt2"), "aapt", "compiles and links resources"),
        Tool("aapt", _which("aapt"), "aapt", "checks APKs (dump badging)"),
        Tool("zipalign", _which("zipalign"), "zipalign", "aligns the APK"),
        Tool("apksigner", _which("apksigner"), "apksigner", "signs and verifies the APK"),
        Tool("dexdump", _which("dexdump"), "dexdump", "checks the APK's classes"),
        Tool("framework-res", _first("/usr/share/android-framework-res/framework-res.apk"),
             "android-framework-res", "the platform resources of android.jar"),
        Tool("guava", _first("/usr/share/java/guava.jar"), "libguava-java", "needed by dx"),
        Tool("dx", dx_jar(), "libgradle-android-plugin-java", "turns classes into dex"),
        Tool("apt-get", _which("apt-get"), "apt", "fetches the API source and dx"),
        Tool("dpkg-deb", _which("dpkg-deb"), "dpkg", "unpacks the dx package"),
    )}


def require(*names: str) -> dict[str, Path]:
    """The paths of `names`, or a ToolchainError (exit 3) saying how to install what is missing."""
    found = tools()
    missing = [found[n] for n in names if not found[n].found]
    if missing:
        lines = [f"  {t.name}: {t.purpose}; install: {t.hint()}" for t in missing]
        pkgs = sorted({t.package for t in missing if t.name != "dx"})
        cmd = f"\n  all at once: sudo apt-get install {' '.join(pkgs)}" if pkgs else ""
        raise ToolchainError("missing Android build tools (see `phoneworld doctor`):\n"
                             + "\n".join(lines) + cmd)
    return {n: found[n].path for n in names}  # type: ignore[misc]


def java_env() -> dict[str, str]:
    """The environment for Java tools: JAVA_HOME pinned to JDK 17, quiet JVM options."""
    env = dict(os.environ)
    home = java_home()
    if home is not None:
        env["JAVA_HOME"] = str(home)
        env["PATH"] = f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.pop("JAVA_TOOL_OPTIONS", None)  # its "Picked up ..." banner pollutes tool output
    # kotlinc's launcher reads JAVA_OPTS (default -Xmx256M: too small for large screens); C1 only
    # starts faster for these short compiler runs
    env.setdefault("JAVA_OPTS", "-Xmx1536m -Xss8m -XX:+UseSerialGC -XX:TieredStopAtLevel=1")
    return env


def run(cmd: list[str | Path], what: str, cwd: Path | None = None, timeout: float = 900,
        java: bool = True) -> str:
    """Run one tool; its stdout, or a ToolchainError with the command, exit code and log tail."""
    argv = [str(c) for c in cmd]
    log.debug("run %s", " ".join(argv))
    try:
        proc = subprocess.run(argv, cwd=cwd, env=java_env() if java else None, capture_output=True,
                              text=True, errors="replace", timeout=timeout)
    except FileNotFoundError as exc:
        raise ToolchainError(f"{what}: {argv[0]} not found ({exc}); run `phoneworld doctor`") from exc
    except subprocess.TimeoutExpired as exc:
        raise ToolchainError(f"{what}: `{_short(argv)}` timed out after {timeout:.0f}s") from exc
    if proc.returncode != 0:
        log_text = proc.stdout + proc.stderr
        raise ToolchainError(
            f"{what} failed: `{_short(argv)}` exited with code {proc.returncode}"
            f"{_first_errors(log_text)}; log tail:\n{log_text[-TAIL_CHARS:]}")
    return proc.stdout


def _first_errors(log_text: str, limit: int = 8) -> str:
    """The first error lines of a long log (a compiler's cause comes before its stack trace)."""
    keys = ("error:", "Exception", "Caused by", "FAILED", "Error:")
    hits = [line.strip()[:300] for line in log_text.splitlines() if any(k in line for k in keys)]
    return "; first errors:\n  " + "\n  ".join(hits[:limit]) if hits else ""


def _short(argv: list[str], limit: int = 600) -> str:
    text = " ".join(argv)
    return text if len(text) <= limit else text[: limit - 20] + f" ... ({len(argv)} args)"
