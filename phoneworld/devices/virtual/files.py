"""The files of a virtual device: a real directory tree on the host (`/sdcard`, `/data`), shared by
the device's sandboxed shell (which sees it as its own `/sdcard` and `/data`) and by the device
process (`sync:` pushes and pulls, `uiautomator dump`, `screencap FILE`).

Everything the device process does with a device path goes through `DeviceFiles`, which resolves
it *inside* the device's folder the way a chroot would: `..` stops at the device's `/`, and a
symbolic link that the shell made (`ln -s /etc/passwd /sdcard/x`, `ln -s ../../.. /sdcard/up`) is
followed as a path of the device, never of the host. Each component is opened with `O_NOFOLLOW`
relative to its parent's descriptor, so a link swapped in while a pull runs is refused, not
followed. Only regular files are read or written (a FIFO or a socket is "not a file").
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
import weakref
from collections.abc import Iterator, MutableMapping
from pathlib import Path

# device path prefixes that are the same folder as /sdcard on Android
SDCARD_ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard")
TOP = ("sdcard", "data")  # the device folders that are host folders; the rest is the sandbox's
SKELETON = ("sdcard/Download", "sdcard/Pictures", "data/local/tmp", "data/app")
# device folders that exist (for `stat`/`ls`) without being host folders
VIRTUAL_DIRS = frozenset({"/", "/storage", "/storage/emulated", "/storage/self", "/mnt"})
MAX_LINKS = 40
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def norm_path(path: str) -> str:
    """A device path as an absolute, `..`-free path with /sdcard for its aliases."""
    path = posixpath.normpath("/" + path.strip())
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    for prefix in SDCARD_ALIASES:
        if path == prefix or path.startswith(prefix + "/"):
            path = "/sdcard" + path[len(prefix):]
    return path


class DeviceFiles(MutableMapping[str, bytes]):
    """The device's tree under `root` (a host folder), as a mapping device path -> bytes.

    `owner` (uid, gid) is who the sandboxed shell is on the host; files and folders the device
    process creates are given to it, so that the shell can change them."""

    def __init__(self, root: Path, owner: tuple[int, int] | None = None) -> None:
        self.root = Path(root)
        self.owner = owner
        for d in (self.root, *(self.root / t for t in TOP)):
            d.mkdir(parents=True, exist_ok=True)
            if owner is not None:
                os.chown(d, *owner)
        # the top folders are the sandbox's mount points (it cannot replace them): kept open
        self._top = {t: os.open(self.root / t, _DIR_FLAGS) for t in TOP}
        self._closer = weakref.finalize(self, _close_all, list(self._top.values()))
        for sub in SKELETON:
            self.mkdirs("/" + sub)

    # ------------------------------------------------------------------ resolution

    def _resolve(self, path: str, create_dirs: bool = False) -> tuple[int, str]:
        """(descriptor of the parent folder, last name) of device `path`, links followed inside
        the device. The caller closes the descriptor with `_release`. Raises OSError (ENOENT,
        EACCES, ELOOP)."""
        p = norm_path(path)
        for _ in range(MAX_LINKS):
            parts = [c for c in p.split("/") if c]
            if len(parts) < 2 or parts[0] not in TOP:
                raise OSError(errno.EACCES, "outside the device's writable folders", path)
            fd = self._top[parts[0]]
            try:
                for i, name in enumerate(parts[1:-1], 1):
                    try:
                        nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                    except FileNotFoundError:
                        if not create_dirs:
                            raise
                        self._mkdir_at(fd, name)
                        nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                    except OSError as exc:
                        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                            raise
                        target = self._link(fd, name)
                        if target is None:
                            raise
                        p = self._join(parts[:i], target, parts[i + 1:])
                        break
                    self._release(fd)
                    fd = nxt
                else:
                    return fd, parts[-1]
            except BaseException:
                self._release(fd)
                raise
            self._release(fd)
        raise OSError(errno.ELOOP, "too many levels of symbolic links", path)

    def _release(self, fd: int) -> None:
        if fd not in self._top.values():
            os.close(fd)

    @staticmethod
    def _link(dir_fd: int, name: str) -> str | None:
        try:
            return os.readlink(name, dir_fd=dir_fd)
        except OSError:
            return None

    @staticmethod
    def _join(before: list[str], target: str, after: list[str]) -> str:
        base = target if target.startswith("/") else "/".join(["", *before, target])
        return norm_path("/".join([base, *after]))

    def _mkdir_at(self, dir_fd: int, name: str) -> None:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o775, dir_fd=dir_fd)
            if self.owner is not None:
                os.chown(name, *self.owner, dir_fd=dir_fd, follow_symlinks=False)

    def _open(self, path: str, flags: int, mode: int = 0o644) -> int:
        """An open descriptor of the regular file at device `path` (final links followed inside
        the device)."""
        p = path
        for _ in range(MAX_LINKS):
            parent, name = self._resolve(p, create_dirs=bool(flags & os.O_CREAT))
            try:
                try:
                    fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                                 mode, dir_fd=parent)
                except OSError as exc:
                    target = self._link(parent, name) if exc.errno == errno.ELOOP else None
                    if target is None:
                        raise
                    p = self._join(norm_path(p).split("/")[1:-1], target, [])
                    continue
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    os.close(fd)
                    raise OSError(errno.EINVAL, "not a regular file", path)
                if self.owner is not None and (st.st_uid, st.st_gid) != self.owner:
                    os.fchown(fd, *self.owner)
                return fd  # (O_NONBLOCK does nothing to a regular file)
            finally:
                self._release(parent)
        raise OSError(errno.ELOOP, "too many levels of symbolic links", path)

    # ------------------------------------------------------------------ file operations

    def read(self, path: str) -> bytes:
        fd = self._open(path, os.O_RDONLY)
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def write(self, path: str, data: bytes, mode: int = 0o644, append: bool = False) -> None:
        """Write (create, truncate) the file; missing folders are made, as `adb push` does."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        fd = self._open(path, flags, mode & 0o777)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def _dir_fd(self, path: str, create: bool = False) -> int:
        """A descriptor of the folder at device `path` (made, with its parents, if `create`)."""
        fd, _ = self._resolve(norm_path(path) + "/_", create_dirs=create)
        return fd

    def mkdirs(self, path: str) -> None:
        self._release(self._dir_fd(path, create=True))

    def stat(self, path: str) -> os.stat_result | None:
        """The file's or folder's stat (links followed inside the device); None if absent."""
        p = norm_path(path)
        if p in VIRTUAL_DIRS:
            return os.stat(self.root)
        if p[1:] in TOP:
            return os.stat(self.root / p[1:])
        try:
            parent, name = self._resolve(p)
        except OSError:
            return None
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                target = self._link(parent, name)
                if target is None:
                    return None
                return self.stat(self._join(p.split("/")[1:-1], target, []))
            return st
        except OSError:
            return None
        finally:
            self._release(parent)

    def listdir(self, path: str) -> list[tuple[str, os.stat_result]]:
        """(name, lstat) of a folder's entries, sorted; [] when it is not a folder."""
        p = norm_path(path)
        if p == "/":
            return [(t, os.stat(self.root / t)) for t in TOP]
        if p in VIRTUAL_DIRS:
            return []
        try:
            parent = self._dir_fd(p)
        except OSError:
            return []
        try:
            out = []
            for entry in os.listdir(parent):
                with contextlib.suppress(OSError):
                    out.append((entry, os.stat(entry, dir_fd=parent, follow_symlinks=False)))
            return sorted(out)
        finally:
            self._release(parent)

    def remove(self, path: str) -> None:
        parent, name = self._resolve(path)
        try:
            os.unlink(name, dir_fd=parent)
        finally:
            self._release(parent)

    # ------------------------------------------------------------------ the mapping view

    def __getitem__(self, path: str) -> bytes:
        try:
            return self.read(path)
        except OSError as exc:
            raise KeyError(path) from exc

    def __setitem__(self, path: str, data: bytes) -> None:
        self.write(path, data)

    def __delitem__(self, path: str) -> None:
        try:
            self.remove(path)
        except OSError as exc:
            raise KeyError(path) from exc

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        st = self.stat(path)
        return st is not None and stat.S_ISREG(st.st_mode)

    def __iter__(self) -> Iterator[str]:
        for top in TOP:
            base = self.root / top
            for dirpath, _, names in os.walk(base):
                rel = os.path.relpath(dirpath, self.root)
                for n in names:
                    if (Path(dirpath) / n).is_file() and not (Path(dirpath) / n).is_symlink():
                        yield "/" + posixpath.join(rel, n)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
