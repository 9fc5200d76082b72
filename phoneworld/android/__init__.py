"""Android output (DESIGN section 4): a Kotlin project per compiled app, a signed APK built
offline, and a pure-Kotlin core that agrees with the simulator step by step.

- `project.render_project(spec)` / `project_files(spec)`: the Gradle project under
  `generated_apps/<app>/android/` from `phoneworld/templates/kotlin/` (names in `names`, literals
  in `escape`, expressions and effects in `codegen`, widget trees in `layout`, the whole context
  in `context`);
- `apk.build_apk(app_dir)`: the signed debug APK (Gradle route, or offline: aapt2, kotlinc, dx,
  zipalign, apksigner; tools in `toolchain`, cached android.jar, dx and keys in `platform`, the
  android.jar stubs from the API signature file in `apisig`, `stubs`, `hierarchy`);
- `jvm.compile_cores` / `jvm.agree`: the conformance harness (records in `conformance`);
- `commands`: `phoneworld apk` and `phoneworld doctor`.

Nothing here is imported by `import phoneworld`; modules load on use.
"""
