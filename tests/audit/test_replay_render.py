"""The replay page's generic parts (``games.audit.replay``): a ruleset's sections become HTML only through a
whitelist (text escaped, a few tags, a class and data attributes), and the chart fits any values."""

from __future__ import annotations

import pytest

from games.audit import replay


def test_text_and_attributes_are_escaped() -> None:
    html = replay.render(
        [
            "<script>alert(1)</script> & more",
            {"tag": "p", "class": "note", "data": {"seat": '1" onclick="x'}, "children": ["<b>"]},
            {"tag": "li", "data": {"guarded": True, "value": 5000}, "children": []},
        ]
    )
    assert html == (
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"
        '<p class="note" data-seat="1&quot; onclick=&quot;x">&lt;b&gt;</p>'
        '<li data-guarded="true" data-value="5000"></li>'
    )


@pytest.mark.parametrize(
    "node",
    [
        {"tag": "script", "children": []},
        {"tag": "a", "children": ["x"]},
        {"tag": "p", "class": 'x" onload="y', "children": []},
        {"tag": "p", "data": {"x onload": "y"}, "children": []},
        {"tag": "p", "data": {"Seat": "1"}, "children": []},
        42,
    ],
)
def test_anything_else_is_refused(node: object) -> None:
    with pytest.raises(ValueError, match=r"not a replay node|bad "):
        replay.render([node])


def test_the_chart_fits_any_values() -> None:
    geometry = replay.chart("Points", [3, 10, 40], [[0, 5], [-3, 12], [7, 9]], ["A", "B"])
    assert [line["last"] for line in geometry["lines"]] == [7, 9]
    ticks = [t["label"] for t in geometry["ticks"]]
    assert ticks[0] == "-5", ticks
    assert ticks[-1] == "15", ticks
    ys = [t["y"] for t in geometry["ticks"]]
    assert ys == sorted(ys, reverse=True), "higher values are higher up"
    # a step line: the first point, then two per later sample; x runs from the left edge to the right one
    points = geometry["lines"][0]["points"].split()
    assert len(points) == 5
    assert float(points[0].split(",")[0]) == geometry["left"]
    assert float(points[-1].split(",")[0]) == geometry["right"]
    xticks = [t["label"] for t in geometry["xticks"]]
    assert xticks[0] == "3"
    assert xticks[-1] == "40"
