"""A list's rows end at its bottom edge, as a dump shows them: a row that starts past the edge is
not drawn, and of the row the edge cuts, only what starts above it shows (a song's title, not
the artist under it). Before, the mock drew every row it counts whole, and a cut row showed its
artist where the recording never did."""

from __future__ import annotations

from phoneworld.ir.app import AppSpec, FieldSpec, ItemField, ListSpec, ScreenSpec, StateVar, Widget
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device
from phoneworld.runtime.sim import Simulator

PKG = "com.example.playlist"


def _b(x1: int, y1: int, x2: int, y2: int) -> Bounds:
    return Bounds(x1=x1, y1=y1, x2=x2, y2=y2)


def playlist(songs: int, list_bottom: int) -> AppSpec:
    row = Widget(wid="song_row", cls="android.widget.LinearLayout", bounds=_b(0, 200, 1080, 400),
                 clickable=True, children=(
                     Widget(wid="song_title", cls="android.widget.TextView",
                            bounds=_b(40, 220, 1040, 290), text=ItemField(field="title")),
                     Widget(wid="song_artist", cls="android.widget.TextView",
                            bounds=_b(40, 300, 1040, 370), text=ItemField(field="artist"))))
    songs_list = Widget(wid="songs", cls="androidx.recyclerview.widget.RecyclerView",
                        bounds=_b(0, 200, 1080, list_bottom), scrollable=True,
                        list=ListSpec(collection="songs", item=row, pitch=200, max_visible=6))
    root = Widget(wid="root", cls="android.widget.FrameLayout", bounds=_b(0, 0, 1080, 1920),
                  children=(songs_list,))
    return AppSpec(
        package=PKG, label="Playlist", device=Device(width=1080, height=1920),
        start_screen="s00", screens=(ScreenSpec(id="s00", name="playlist", package=PKG,
                                                root=root),),
        transitions=(),
        state=(StateVar(name="songs", kind="collection", fields=(
            FieldSpec(name="title", kind="text"), FieldSpec(name="artist", kind="text"))),),
        initial_state={"songs": [{"title": f"Song {k}", "artist": f"Artist {k}"}
                                 for k in range(songs)]})


def shown(spec: AppSpec) -> list[str]:
    sim = Simulator(spec)
    sim.reset()
    return [n.text for n in sim.frame().nodes if n.text]


def test_a_row_cut_at_the_lists_bottom_edge_shows_only_what_starts_above_it() -> None:
    # rows start at 200, 400, ..., 1000: the edge at 1040 cuts the fifth row under its title
    # and the sixth starts past it
    texts = shown(playlist(songs=8, list_bottom=1040))
    assert texts == ["Song 0", "Artist 0", "Song 1", "Artist 1", "Song 2", "Artist 2",
                     "Song 3", "Artist 3", "Song 4"]


def test_a_list_whose_bounds_do_not_hold_its_rows_is_drawn_whole() -> None:
    # a container reported with no height (as some dumps do) clips nothing
    assert len(shown(playlist(songs=3, list_bottom=200))) == 6


def test_a_list_one_row_high_is_laid_out_across_and_clips_nothing() -> None:
    # tiles side by side in a strip one row high ("Send", "Transfer", "Add money"): the rows the
    # mock lays out downwards are not cut by the strip's edge
    assert len(shown(playlist(songs=3, list_bottom=400))) == 6
