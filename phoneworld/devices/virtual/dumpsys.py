"""`dumpsys` of a virtual device, in the formats Android 10 prints (11-14 keep every line quoted
here), cut to what clients parse:

- `display`: `DisplayViewport{... orientation=0, ... deviceWidth=W, deviceHeight=H}` (adbutils'
  `rotation`, AndroidViewClient's display info), `DisplayDeviceInfo{..., W x H, ..., density D`;
- `power`: `mWakefulness=Awake`, `mHoldingDisplaySuspendBlocker=true` (adbutils' `is_screen_on`),
  `Display Power: state=ON`;
- `window` / `window windows`: one `Window #N Window{id u0 pkg/cls}:` block per window with
  `mViewVisibility=0x0 ` and `Frames:`/`content=` lines (AndroidViewClient's `getWindows`),
  `mCurrentFocus=` and `mFocusedApp=` (adbutils' `app_current`); `window displays` adds
  `mPredictedRotation`; `window policy` the screen and lock state;
- `activity activities|top|services`: the task with `* Hist #N: ActivityRecord{...}` lines (one
  per screen on the app's back stack), `mResumedActivity`, `ACTIVITY pkg/cls id pid=N`;
- `package [PKG]`, `battery`, `input` (`SurfaceOrientation: 0`), `input_method`,
  `SurfaceFlinger --display-id` (the display id `screencap -d` takes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from phoneworld.runtime.compiled import LAUNCHER, LAUNCHER_PACKAGE

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

Out = tuple[bytes, int]
APP_UID = 10100
DISPLAY_ID = 4619827259835644672  # the physical display id `screencap -d` takes


def _short(component: str) -> str:
    """`pkg/pkg.Main` as ActivityRecords print it: `pkg/.Main`."""
    pkg, _, cls = component.partition("/")
    return f"{pkg}/{cls[len(pkg):]}" if cls.startswith(pkg + ".") else component


def _display(dev: VirtualDevice) -> str:
    w, h, d = dev.width, dev.height, dev.density
    pw, ph = dev.physical
    return (
        "DISPLAY MANAGER (dumpsys display)\n"
        "  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n"
        "  mGlobalDisplayState=ON\n  mNextNonDefaultDisplayId=1\n"
        f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, displayId=0, uniqueId='local:0',"
        f" physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect("
        f"0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}]\n"
        "  mDefaultDisplayDefaultColorMode=0\n\n"
        "Display Devices: size=1\n"
        f"  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:0\", {pw} x {ph}, modeId 1,"
        f" defaultModeId 1, supportedModes [{{id=1, width={pw}, height={ph}, fps=60.0}}],"
        f" colorMode 0, supportedColorModes [0], HdrCapabilities null, density "
        f"{dev.physical_density}, {dev.physical_density}.0 x {dev.physical_density}.0 dpi,"
        " appVsyncOff 1000000, presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL,"
        " address {port=0}, state ON, FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT,"
        " FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}\n"
        "    mAdapter=LocalDisplayAdapter\n    mUniqueId=local:0\n    mDisplayToken=android.os."
        "BinderProxy@5a1c0de\n    mCurrentLayerStack=0\n    mCurrentOrientation=0\n\n"
        "Logical Displays: size=1\n"
        "  Display 0:\n    mDisplayId=0\n    mLayerStack=0\n    mHasContent=true\n"
        f"    mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, FLAG_SECURE, "
        f"FLAG_SUPPORTS_PROTECTED_BUFFERS, real {w} x {h}, largest app {w} x {h}, smallest app "
        f"{w} x {h}, mode 1, defaultMode 1, modes [{{id=1, width={w}, height={h}, fps=60.0}}], "
        f"rotation 0, density {d} ({d}.0 x {d}.0) dpi, layerStack 0, type BUILT_IN, state ON}}\n"
    )


def _power(dev: VirtualDevice) -> str:
    return (
        "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n"
        "  mDirty=0x0\n  mWakefulness=Awake\n  mWakefulnessChanging=false\n"
        "  mIsPowered=true\n  mPlugType=1\n  mBatteryLevel=100\n  mStayOn=false\n"
        "  mProximityPositive=false\n  mBootCompleted=true\n  mSystemReady=true\n"
        "  mHalAutoSuspendModeEnabled=false\n  mHalInteractiveModeEnabled=true\n"
        "  mWakeLockSummary=0x0\n  mUserActivitySummary=0x1\n  mRequestWaitForNegativeProximity=false\n"
        "  mSandmanScheduled=false\n  mSandmanSummoned=false\n  mBatteryLevelLow=false\n"
        "  mLightDeviceIdleMode=false\n  mDeviceIdleMode=false\n"
        "  mScreenBrightnessSettingDefault=102\n  mDisplayReady=true\n"
        "  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker=true\n\n"
        "Display Power: state=ON\n"
    )


def _window_block(num: int, wid: str, title: str, dev: VirtualDevice, pkg: str) -> list[str]:
    w, h = dev.width, dev.height
    return [
        f"  Window #{num} Window{{{wid} u0 {title}}}:",
        f"    mDisplayId=0 stackId=1 mSession=Session{{7e1f2a 4100:u0a{APP_UID % 10000}}}"
        " mClient=android.os.BinderProxy@3b2c1d",
        f"    mOwnerUid={APP_UID} mShowToOwnerOnly=true package={pkg} appop=NONE",
        "    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSPARENT"
        " wanim=0x10302f8}",
        f"    Requested w={w} h={h} mLayoutSeq=42",
        "    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false",
        "    mViewVisibility=0x0 mHaveFrame=true mObscured=false",
        f"    Frames: containing=[0,0][{w},{h}] parent=[0,0][{w},{h}]",
        f"        display=[0,0][{w},{h}] overscan=[0,0][{w},{h}]",
        f"        content=[0,0][{w},{h}] visible=[0,0][{w},{h}]",
        f"        decor=[0,0][{w},{h}]",
        "    mPolicyVisibility=true mLegacyPolicyVisibilityAfterAnim=true mAppOpVisibility=true",
    ]


def _window(dev: VirtualDevice, what: str) -> str:
    focus = dev.focus()
    app = focus if "/" in focus and " " not in focus else dev.package + "/.MainActivity"
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)"]
    if what in ("", "windows", "-a", "all"):
        lines += _window_block(0, "5a1c0de", focus, dev, focus.split("/")[0].split(": ")[-1])
        lines += [
            f"  mCurrentFocus=Window{{5a1c0de u0 {focus}}}",
            f"  mFocusedApp=AppWindowToken{{7f00b1 token=Token{{3c2e ActivityRecord{{9d2 u0 "
            f"{_short(app)} t1}}}}}}",
        ]
    if what in ("", "displays", "-a", "all"):
        lines += [
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
            "  Display: mDisplayId=0",
            f"    init={dev.physical[0]}x{dev.physical[1]} {dev.physical_density}dpi "
            f"cur={dev.width}x{dev.height} app={dev.width}x{dev.height} rng={dev.width}x"
            f"{dev.width}-{dev.height}x{dev.height}",
            "    mRotation=0 mAltOrientation=false",
            "    mLastOrientation=-1",
            "  mPredictedRotation=0",
        ]
    if what in ("", "policy", "-a", "all"):
        lines += [
            "WINDOW MANAGER POLICY STATE (dumpsys window policy)",
            "    mScreenOnEarly=true mScreenOnFully=true",
            "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true",
            "    mDreamingLockscreen=false",
            "    mShowingLockscreen=false",
            "    interactiveState=INTERACTIVE_STATE_AWAKE",
            "    KeyguardServiceDelegate",
            "      showing=false",
        ]
    return "\n".join(lines) + "\n"


def _activities(dev: VirtualDevice) -> str:
    """The foreground task, top first; one ActivityRecord per screen on the app's back stack."""
    focus = dev.focus()
    in_app = focus.startswith(dev.package + "/")
    top = _short(focus) if "/" in focus and " " not in focus else _short(
        f"{LAUNCHER_PACKAGE}/{LAUNCHER_PACKAGE}.Launcher")
    records = [top]
    if in_app:
        acts = [dev.spec.screen(s).activity for s in reversed(dev.sim.stack) if s != LAUNCHER]
        records += [_short(_full(a, dev.package)) for a in acts if a]
    pkg = top.split("/")[0]
    lines = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
             "Display #0 (activities from top to bottom):", "",
             "  Stack #1: type=standard mode=fullscreen", "  isSleeping=false",
             "  mBounds=Rect(0, 0 - 0, 0)", "", "    Task id #1",
             "    mBounds=Rect(0, 0 - 0, 0)",
             f"    * TaskRecord{{a1b2c3 #1 A={pkg} U=0 StackId=1 sz={len(records)}}}",
             f"      userId=0 effectiveUid=u0a{APP_UID % 10000} mCallingUid=2000 "
             "mUserSetupComplete=true mCallingPackage=null",
             f"      affinity={pkg}",
             f"      intent={{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER]"
             f" flg=0x10200000 cmp={records[-1]}}}"]
    for i, rec in enumerate(records):
        n = len(records) - 1 - i
        lines += [f"      * Hist #{n}: ActivityRecord{{{0x9d2 + n:x} u0 {rec} t1}}",
                  f"          packageName={pkg} processName={pkg}",
                  f"          launchedFromUid=2000 launchedFromPackage=null userId=0"]
    lines += ["", "    Running activities (most recent first):",
              f"      TaskRecord{{a1b2c3 #1 A={pkg} U=0 StackId=1 sz={len(records)}}}"]
    lines += [f"        Run #{len(records) - 1 - i}: ActivityRecord{{{0x9d2 + len(records) - 1 - i:x}"
              f" u0 {rec} t1}}" for i, rec in enumerate(records)]
    lines += ["", f"    mResumedActivity: ActivityRecord{{{0x9d2 + len(records) - 1:x} u0 {top} t1}}",
              "", f" ResumedActivity: ActivityRecord{{{0x9d2 + len(records) - 1:x} u0 {top} t1}}",
              "  mFocusedStack=ActivityStack{a1 stackId=1 type=standard mode=fullscreen"
              " visible=true translucent=false, 1 tasks}"]
    return "\n".join(lines) + "\n"


def _full(activity: str, package: str) -> str:
    pkg, _, cls = activity.partition("/")
    return f"{pkg}/{pkg}{cls}" if cls.startswith(".") else activity if cls else f"{package}/{pkg}"


def _top(dev: VirtualDevice) -> str:
    focus = dev.focus()
    comp = _short(focus) if "/" in focus and " " not in focus else ""
    pid = dev.pid if comp.startswith(dev.package + "/") and dev.pid else 1200
    return ("TASK 1 id=1 userId=0\n"
            f"  ACTIVITY {comp or _short(LAUNCHER_PACKAGE + '/' + LAUNCHER_PACKAGE + '.Launcher')}"
            f" 9d2 pid={pid}\n    Local Activity 3f0e1d State:\n      mResumed=true mStopped=false"
            " mFinished=false\n")


def _services(dev: VirtualDevice) -> str:
    """Running services: those of the helper apps the device plays (DroidBot's)."""
    lines = ["ACTIVITY MANAGER SERVICES (dumpsys activity services)"]
    if not dev.services:
        return "\n".join(lines + ["  (nothing)"]) + "\n"
    lines.append("  User 0 active services:")
    for i, comp in enumerate(sorted(dev.services)):
        pkg = comp.split("/")[0]
        lines += [f"  * ServiceRecord{{{0x4e5f6a + i:x} u0 {_short(comp)}}}",
                  f"    intent={{act=android.accessibilityservice.AccessibilityService "
                  f"cmp={_short(comp)}}}",
                  f"    packageName={pkg}", f"    processName={pkg}",
                  f"    app=ProcessRecord{{1a2b {5100 + i}:{pkg}/u0a{101 + i}}}"]
    return "\n".join(lines) + "\n"


def _package(dev: VirtualDevice, pkg: str | None) -> str:
    from phoneworld.devices.virtual.commands import apk_path

    if pkg is not None and (pkg != dev.package or not dev.installed):
        return ""
    start = dev.spec.screen(dev.spec.start_screen).activity or f"{dev.package}/.MainActivity"
    main = _short(_full(start, dev.package))
    return (
        "Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n"
        f"        5c3e2a {main} filter 1d2e3f\n          Action: \"android.intent.action.MAIN\"\n"
        "          Category: \"android.intent.category.LAUNCHER\"\n\n"
        f"Packages:\n  Package [{dev.package}] (1f2e3d):\n    userId={APP_UID}\n"
        f"    pkg=Package{{1f2e3d {dev.package}}}\n    codePath={apk_path(dev).rsplit('/', 1)[0]}\n"
        f"    resourcePath={apk_path(dev).rsplit('/', 1)[0]}\n    primaryCpuAbi=null\n"
        "    versionCode=1 minSdk=21 targetSdk=29\n    versionName=1.0\n"
        "    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
        "    timeStamp=2026-01-01 00:00:00\n    firstInstallTime=2026-01-01 00:00:00\n"
        "    lastUpdateTime=2026-01-01 00:00:00\n    installerPackageName=null\n"
        f"    User 0: ceDataInode=0 installed={str(dev.installed).lower()} hidden=false "
        "suspended=false stopped=false notLaunched=false enabled=0 instant=false virtual=false\n"
    )


def _battery() -> str:
    return ("Current Battery Service state:\n  AC powered: true\n  USB powered: false\n"
            "  Wireless powered: false\n  Max charging current: 0\n  Max charging voltage: 0\n"
            "  Charge counter: 10000\n  status: 2\n  health: 2\n  present: true\n  level: 100\n"
            "  scale: 100\n  voltage: 5000\n  temperature: 250\n  technology: Li-ion\n")


def _input(dev: VirtualDevice) -> str:
    w, h = dev.width, dev.height
    return (
        "INPUT MANAGER (dumpsys input)\n\nEvent Hub State:\n  BuiltInKeyboardId: -2\n"
        "  Devices:\n    -1: Virtual\n      Classes: 0x40000023\n      Path: <virtual>\n"
        "    1: phoneworld_touchscreen\n      Classes: 0x00000015\n      Path: /dev/input/event1\n"
        "    2: phoneworld_keys\n      Classes: 0x00000001\n      Path: /dev/input/event2\n\n"
        "Input Reader State:\n  Device 1: phoneworld_touchscreen\n    Generation: 2\n"
        "    IsExternal: false\n    Sources: 0x00001002\n    Touch Input Mapper (mode - direct):\n"
        "      Parameters:\n        DeviceType: touchScreen\n        OrientationAware: true\n"
        f"      Raw Touch Axes:\n        X: min=0, max={w - 1}, flat=0, fuzz=0, resolution=0\n"
        f"        Y: min=0, max={h - 1}, flat=0, fuzz=0, resolution=0\n"
        f"      SurfaceWidth: {w}px\n      SurfaceHeight: {h}px\n      SurfaceLeft: 0\n"
        "      SurfaceTop: 0\n      SurfaceOrientation: 0\n\n"
        "Input Dispatcher State:\n  DispatchEnabled: true\n  DispatchFrozen: false\n"
        f"  FocusedApplication: name='AppWindowToken{{7f00b1 token=Token{{3c2e}}}}'\n"
        f"  FocusedWindow: name='Window{{5a1c0de u0 {dev.focus()}}}'\n"
    )


def _input_method(dev: VirtualDevice) -> str:
    return (f"Current Input Method Manager state:\n  mCurMethodId={dev.ime}\n"
            "  mCurFocusedWindow=Window{5a1c0de}\n  mInputShown=false\n"
            "  mSystemReady=true mInteractive=true\n")


def cmd_dumpsys(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    service = args[1] if len(args) > 1 else ""
    what = args[2] if len(args) > 2 else ""
    if service == "display":
        return _display(dev).encode(), 0
    if service == "power":
        return _power(dev).encode(), 0
    if service == "window":
        return _window(dev, what).encode(), 0
    if service == "activity":
        if what in ("top",):
            return _top(dev).encode(), 0
        if what in ("services", "s"):
            return _services(dev).encode(), 0
        return _activities(dev).encode(), 0
    if service == "package":
        return _package(dev, what or None).encode(), 0
    if service == "battery":
        return _battery().encode(), 0
    if service == "input":
        return _input(dev).encode(), 0
    if service == "input_method":
        return _input_method(dev).encode(), 0
    if service == "SurfaceFlinger" and what == "--display-id":
        return f"Display {DISPLAY_ID} (HWC display 0): port=0 pnpId=GGL displayName=\"" \
               f"{dev.props['ro.product.model']}\"\n".encode(), 0
    if service in ("-l", ""):
        names = ["activity", "battery", "display", "input", "input_method", "package", "power",
                 "window"]
        return ("Currently running services:\n" + "".join(f"  {n}\n" for n in names)).encode(), 0
    return f"Can't find service: {service}\n".encode(), 0
