"""API signature parsing and the Java stubs of android.jar: the awkward cases compile with javac,
constants keep their values; the generated android.jar holds the platform classes and resources."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from phoneworld.android.apisig import parse_api, strip_annotations
from phoneworld.android.stubs import StubWriter
from tests.android.conftest import need

API = '''// Signature format: 2.0
package java.lang {

  public interface Runnable {
    method public void run();
  }

}

package p {

  public abstract class Base {
    ctor public Base(int, @NonNull String);
    method protected abstract void onLayout(boolean, int, int, int, int);
    field public static final int VERTICAL = 1; // 0x1
    field public static final long BIG = 4294967296L; // 0x100000000L
    field public static final float NOT_A_NUMBER = 0.0f/0.0f;
    field public static final String ODD = "a;b @x \\"q\\" // not a comment";
    field public static final char SEP = 47; // 0x002f '/'
    field @NonNull public static final p.Base.Inner SHARED;
    field public final int count;
  }

  public abstract static class Base.Inner implements java.lang.Comparable<p.Base.Inner> {
    ctor protected Base.Inner();
    method @IntRange(from=0, to=10) public abstract int size();
  }

  public class Base.Nested {
  }

  public final class Leaf extends p.Base {
    ctor public Leaf(@Nullable String);
    ctor public <T> Leaf(java.lang.Class<T>, T...) throws java.io.IOException;
    method public <V extends p.Base> V find(@IdRes int);
  }

  public class Hidden {
  }

  public class FromHidden extends p.Hidden implements java.lang.Runnable {
    ctor public FromHidden();
  }

  public interface A {
    method public default String name(int);
  }

  public interface B {
    method public String name(int);
  }

  public interface AB extends p.A p.B {
  }

  public enum Mode {
    method public static p.Mode valueOf(String);
    method public static final p.Mode[] values();
    method public abstract int code();
    enum_constant public static final p.Mode FAST;
    enum_constant public static final p.Mode SLOW;
  }

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.CLASS) public @interface Marker {
    method public abstract String value();
  }

  public class Outer<T> {
    ctor public Outer(T);
  }

  public class Sub extends p.Outer<java.lang.String> {
    ctor public Sub();
  }

}
'''


def test_annotations_are_stripped_but_literals_kept() -> None:
    line = 'field @NonNull @IntRange(from=0, to=(1)) public static final String X = "@keep(me)";'
    assert strip_annotations(line) == 'field public static final String X = "@keep(me)";'


def test_parse_reads_members_and_nesting() -> None:
    classes = {c.qualified: c for c in parse_api(API)}
    assert classes["p.Base.Inner"].name == "Base.Inner"
    assert classes["p.Base.Inner"].implements == ["java.lang.Comparable<p.Base.Inner>"]
    odd = next(m for m in classes["p.Base"].members if m.name == "ODD")
    assert odd.value == '"a;b @x \\"q\\" // not a comment"'
    leaf = classes["p.Leaf"]
    assert [m.params for m in leaf.ctors()] == [["String"], ["java.lang.Class<T>", "T..."]]
    assert classes["p.AB"].extends == ["p.A", "p.B"]


def test_stubs_compile_and_keep_constants(tmp_path: Path) -> None:
    tools = need("javac")
    sources = StubWriter(parse_api(API)).sources(lambda pkg: pkg == "p")
    files = []
    for rel, text in sources.items():
        path = tmp_path / "src" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        files.append(str(path))
    out = tmp_path / "classes"
    proc = subprocess.run([str(tools["javac"]), "--release", "8", "-nowarn", "-d", str(out), *files],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + "\n".join(sources.values())
    javap = Path(tools["javac"]).with_name("javap")
    shown = subprocess.run([str(javap), "-constants", "-cp", str(out), "p.Base"],
                           capture_output=True, text=True).stdout
    assert "VERTICAL = 1;" in shown and "BIG = 4294967296l;" in shown
    assert 'ODD = "a;b @x \\"q\\" // not a comment";' in shown
    assert (out / "p" / "Base$Inner.class").exists()


def test_android_jar_has_platform_classes_and_resources() -> None:
    need("javac", "jimage", "framework-res", "apt-get")
    from phoneworld.android.platform import android_jar

    with zipfile.ZipFile(android_jar()) as z:
        names = set(z.namelist())
        assert {"android/app/Activity.class", "android/widget/TextView.class",
                "android/view/accessibility/AccessibilityNodeInfo.class",
                "android/widget/LinearLayout$LayoutParams.class", "resources.arsc",
                "AndroidManifest.xml"} <= names
        assert z.getinfo("resources.arsc").compress_type == zipfile.ZIP_STORED
        assert not any(n.startswith("java/lang/") for n in names)  # the JDK provides java.*
