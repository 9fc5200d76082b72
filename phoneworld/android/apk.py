"""The `apk` pass: an app's Kotlin project -> a signed debug APK.

Two routes. With a Gradle wrapper in the project and an Android SDK (`ANDROID_HOME`), it runs
`./gradlew assembleDebug`. Otherwise (always on Debian without Google's SDK) the offline route
calls the tools directly: aapt2 compile/link -> javac (R.java, Java 7 classes) -> kotlinc (Kotlin
1.3, JVM 1.6 classes) -> dx -> merge with the pre-dexed Kotlin runtime -> zip -> zipalign ->
apksigner. The app's dex is cached by the hash of its inputs, so rebuilding an unchanged project
(a warm build) skips kotlinc and dx. The offline route also packs the app spec as an asset
(`SPEC_ASSET`), which lets a virtual device install the APK as the app it is.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from phoneworld.android import platform
from phoneworld.android.project import ANDROID_DIR, write_project
from phoneworld.android.toolchain import cache_dir, require, run
from phoneworld.devices.protocol import SPEC_ASSET
from phoneworld.errors import AppSpecError, ToolchainError, UsageError

log = logging.getLogger(__name__)

MIN_SDK, TARGET_SDK = 21, 29


@dataclass
class ApkResult:
    path: Path
    size: int
    seconds: float
    route: str
    steps: dict[str, float] = field(default_factory=dict)  # step -> seconds
    dex_cached: bool = False


class _Timer:
    def __init__(self) -> None:
        self.steps: dict[str, float] = {}

    def __call__(self, name: str, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.steps[name] = round(self.steps.get(name, 0.0) + time.perf_counter() - start, 3)


def project_dir(app_dir: Path) -> Path:
    """The app's Android project, written from its app.json when the build did not emit one."""
    proj = app_dir / ANDROID_DIR
    if (proj / "app" / "src" / "main" / "AndroidManifest.xml").exists():
        return proj
    spec_file = app_dir / "app.json"
    if not spec_file.exists():
        raise UsageError(f"{app_dir}: no app.json; pass a folder made by `phoneworld build`")
    from phoneworld.ir.app import AppSpec

    try:
        spec = AppSpec.model_validate_json(spec_file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise AppSpecError(f"{spec_file}: not a valid app spec: {exc}") from exc
    write_project(spec, proj)
    return proj


def manifest_package(proj: Path) -> str:
    text = (proj / "app" / "src" / "main" / "AndroidManifest.xml").read_text(encoding="utf-8")
    start = text.index('package="') + len('package="')
    return text[start: text.index('"', start)]


def build_apk(app_dir: Path, out: Path | None = None, route: str = "auto") -> ApkResult:
    """Build `app_dir`'s signed debug APK (default `app_dir/<package>-debug.apk`)."""
    if route not in ("auto", "offline", "gradle"):
        raise UsageError(f"--route must be auto, offline or gradle, got {route!r}")
    start = time.perf_counter()
    proj = project_dir(app_dir)
    out = out or app_dir / f"{manifest_package(proj)}-debug.apk"
    use_gradle = route == "gradle" or (
        route == "auto" and (proj / "gradlew").exists() and os.environ.get("ANDROID_HOME"))
    if use_gradle:
        result = _gradle(proj, out)
    else:
        spec = app_dir / "app.json"  # a world's app project has none: its APK carries no spec
        result = _offline(proj, out, spec.read_bytes() if spec.is_file() else None)
    result.seconds = round(time.perf_counter() - start, 3)
    log.info("built %s (%d bytes) in %.1fs by the %s route", out, result.size, result.seconds,
             result.route)
    return result


def _gradle(proj: Path, out: Path) -> ApkResult:
    if not (proj / "gradlew").exists():
        raise ToolchainError(f"{proj}: no gradlew; run `gradle wrapper` there, or use the offline route")
    if not os.environ.get("ANDROID_HOME"):
        raise ToolchainError("the Gradle route needs ANDROID_HOME (an Android SDK)")
    run([proj / "gradlew", "--no-daemon", "assembleDebug"], "gradlew assembleDebug", cwd=proj)
    built = sorted((proj / "app" / "build" / "outputs" / "apk" / "debug").glob("*.apk"))
    if not built:
        raise ToolchainError(f"gradlew assembleDebug made no APK under {proj}/app/build/outputs")
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built[0], out)
    return ApkResult(out, out.stat().st_size, 0.0, "gradle")


def _offline(proj: Path, out: Path, spec_json: bytes | None) -> ApkResult:
    tools = require("java", "javac", "kotlinc", "kotlin-stdlib", "aapt2", "zipalign", "apksigner",
                    "framework-res", "guava", "keytool")
    timer = _Timer()
    android_jar = timer("android.jar", platform.android_jar)
    main = proj / "app" / "src" / "main"
    with tempfile.TemporaryDirectory(prefix="pw-apk-") as tmp:
        work = Path(tmp)
        base = timer("aapt2", _resources, tools, main, android_jar, work)
        key = _dex_key(main, work / "gen", android_jar)
        cached = cache_dir() / "apps" / f"{key}.dex"
        dex_cached = cached.exists()
        if not dex_cached:
            app_dex = _compile_app(tools, main, android_jar, work, timer)
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(app_dex, cached.with_suffix(".tmp"))
            os.replace(cached.with_suffix(".tmp"), cached)
        stdlib = timer("kotlin-stdlib dex", platform.stdlib_dex)
        merged = work / "classes.dex"
        timer("merge dex", run, platform.dx_command("com.android.dx.merge.DexMerger", merged,
                                                     cached, stdlib), "dx DexMerger")
        unsigned = work / "unsigned.apk"
        shutil.copyfile(base, unsigned)
        with zipfile.ZipFile(unsigned, "a", zipfile.ZIP_DEFLATED) as z:
            z.write(merged, "classes.dex")
            if spec_json is not None:  # inert on a phone; a virtual device serves it
                z.writestr(SPEC_ASSET, spec_json)
        aligned = work / "aligned.apk"
        timer("zipalign", run, [tools["zipalign"], "-f", "4", unsigned, aligned], "zipalign")
        keystore = timer("keystore", platform.debug_keystore)
        out.parent.mkdir(parents=True, exist_ok=True)
        signed = work / "signed.apk"
        timer("apksigner", run, [tools["apksigner"], "sign", "--ks", keystore, "--ks-pass",
                                 f"pass:{platform.STORE_PASS}", "--key-pass",
                                 f"pass:{platform.STORE_PASS}", "--out", signed, aligned],
              "apksigner sign")
        shutil.copyfile(signed, out)
    return ApkResult(out, out.stat().st_size, 0.0, "offline", timer.steps, dex_cached)


def _resources(tools: dict[str, Path], main: Path, android_jar: Path, work: Path) -> Path:
    """aapt2: the resource-only APK and R.java (under work/gen)."""
    flat = work / "res.zip"
    run([tools["aapt2"], "compile", "--dir", main / "res", "-o", flat], "aapt2 compile", java=False)
    base = work / "base.apk"
    run([tools["aapt2"], "link", "-I", android_jar, "--manifest", main / "AndroidManifest.xml",
         "-o", base, "--java", work / "gen", "--min-sdk-version", str(MIN_SDK),
         "--target-sdk-version", str(TARGET_SDK), "--debug-mode", flat], "aapt2 link", java=False)
    return base


def kotlin_sources(root: Path) -> list[Path]:
    return sorted(root.rglob("*.kt"))


def _dex_key(main: Path, gen: Path, android_jar: Path) -> str:
    h = hashlib.sha256()
    for path in [*kotlin_sources(main / "java"), *sorted(gen.rglob("*.java"))]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    stat = android_jar.stat()
    h.update(f"{stat.st_size}:{platform.GENERATOR_VERSION}".encode())
    return h.hexdigest()[:24]


def _compile_app(tools: dict[str, Path], main: Path, android_jar: Path, work: Path,
                 timer: _Timer) -> Path:
    """R.java and the Kotlin sources -> the app's own dex (without the Kotlin runtime)."""
    rcls, kcls = work / "rclasses", work / "kclasses"
    rcls.mkdir()
    r_java = sorted((work / "gen").rglob("*.java"))
    timer("javac (R)", run, [tools["javac"], "--release", "7", "-nowarn", "-Xlint:-options",
                             "-encoding", "UTF-8", "-d", rcls, *r_java], "javac R.java")
    sources = kotlin_sources(main / "java")
    timer("kotlinc", run, [tools["kotlinc"], "-nowarn", "-jvm-target", "1.6", "-classpath",
                           f"{android_jar}{os.pathsep}{rcls}", "-d", kcls, *sources], "kotlinc")
    app_dex = work / "app.dex"
    timer("dx (app)", run, platform.dx_command("com.android.dx.command.Main", "--dex",
                                               f"--output={app_dex}", kcls, rcls), "dx")
    return app_dex
