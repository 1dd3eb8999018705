"""gpuvis symbols: SVG pages in millimetres holding the requested prints at the requested size, whose
embedded images decode as their IDs."""
import base64
import json
import xml.etree.ElementTree as ET

import pytest

SVG = "{http://www.w3.org/2000/svg}"


def test_sheet_holds_the_symbols_at_their_size(cli, tmp_path):
    r = cli("symbols", "--ids", "3,7-9", "--size", "5cm", "--paper", "a4", "--out", tmp_path / "sheet.svg")
    assert "4 symbols of 50 mm on 1 a4 page" in r.stderr
    root = ET.parse(tmp_path / "sheet.svg").getroot()
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("210mm", "297mm", "0 0 210 297")
    images = root.findall(f"{SVG}image")
    labels = [t.text for t in root.findall(f"{SVG}text")]
    assert labels == ["default 3", "default 7", "default 8", "default 9"]
    assert len(images) == 4
    for im, expected in zip(images, (3, 7, 8, 9)):
        assert float(im.get("width")) == 50 and float(im.get("height")) == 50
        x, y = float(im.get("x")), float(im.get("y"))
        assert 10 <= x and x + 50 <= 200 and 10 <= y and y + 50 <= 287  # inside the 10 mm margins
        png = base64.b64decode(im.get("href").split(",", 1)[1])
        assert png.startswith(b"\x89PNG")
        path = tmp_path / f"print_{expected}.png"
        path.write_bytes(png)
        det = cli("detect", path, "--json", "--backend", "cpu", check=False)
        if det.returncode != 0 and "PNG" in det.stderr:
            pytest.skip("this build reads no PNG")
        ids = [f["id"] for f in json.loads(det.stdout.splitlines()[0])["fiducials"]]
        assert ids == [expected]


def test_pages_and_errors(cli, tmp_path):
    r = cli("symbols", "--ids", "0-35", "--size", "6cm", "--out", tmp_path / "s.svg")
    assert sorted(p.name for p in tmp_path.glob("s-*.svg")) == ["s-1.svg", "s-2.svg", "s-3.svg"]
    again = cli("symbols", "--ids", "0-35", "--size", "6cm", "--out", tmp_path / "s.svg", check=False)
    assert again.returncode != 0 and "--overwrite" in again.stderr
    for args, needle in ((["--ids", "300"], "0 to 215"), (["--size", "6 furlongs"], "unit"),
                         (["--size", "40cm"], "does not fit"), (["--ids", "x"], "--ids")):
        bad = cli("symbols", *args, "--out", tmp_path / "bad.svg", check=False)
        assert bad.returncode != 0 and needle in bad.stderr, (args, bad.stderr)
        assert bad.stderr.count("\n") == 1, bad.stderr


def test_yamaarashi_sheet_prints_and_decodes(cli, tmp_path):
    """Yamaarashi sheets are vector drawings: printed (rasterised by librsvg) they decode as their IDs."""
    import shutil
    import subprocess
    ids = [0, 1, 299, 4242, 65535]
    r = cli("symbols", "--set", "yamaarashi", "--ids", ",".join(map(str, ids)), "--size", "4cm", "--out", tmp_path / "y.svg")
    assert "5 symbols of 40 mm on 1 a4 page" in r.stderr
    root = ET.parse(tmp_path / "y.svg").getroot()
    assert [t.text for t in root.findall(f"{SVG}text")] == [f"yamaarashi {i}" for i in ids]
    assert not root.findall(f"{SVG}image")  # drawn, not embedded
    bad = cli("symbols", "--set", "yamaarashi", "--ids", "65536", "--out", tmp_path / "bad.svg", check=False)
    assert bad.returncode != 0 and "0 to 65535" in bad.stderr
    if not shutil.which("rsvg-convert"):
        pytest.skip("rsvg-convert (Debian librsvg2-bin) is not installed")
    subprocess.run(["rsvg-convert", "-d", "120", "-p", "120", "-b", "white", tmp_path / "y.svg", "-o", tmp_path / "y.png"], check=True)
    det = cli("detect", tmp_path / "y.png", "--yamaarashi", "--json", "--backend", "cpu", check=False)
    if det.returncode != 0 and "PNG" in det.stderr:
        pytest.skip("this build reads no PNG")
    found = [f["id"] for f in json.loads(det.stdout.splitlines()[0])["fiducials"]]
    assert sorted(found) == sorted(ids)


def test_calibration_sheet_prints_and_fits_to_an_empty_grid(cli, tmp_path):
    """The calibration sheet, rasterised at the camera's size as if the camera looked straight down
    at it, fits to a grid of (nearly) zero displacements; the grid is reacTIVision's layout."""
    import shutil
    import subprocess
    r = cli("calibrate", "sheet", tmp_path / "sheet.svg", "--camera", "640x480", "--table-width", "80cm")
    assert "63 dots for a 640x480 camera, 800 x 600 mm" in r.stderr
    root = ET.parse(tmp_path / "sheet.svg").getroot()
    assert root.get("width") == "800mm" and root.get("height") == "600mm"
    assert len(root.findall(f"{SVG}circle")) == 63
    again = cli("calibrate", "sheet", tmp_path / "sheet.svg", check=False)
    assert again.returncode != 0 and "--overwrite" in again.stderr  # nothing replaced without asking
    if not shutil.which("rsvg-convert"):
        pytest.skip("rsvg-convert (Debian librsvg2-bin) is not installed")
    subprocess.run(["rsvg-convert", "-w", "640", "-h", "480", "-b", "white", tmp_path / "sheet.svg", "-o", tmp_path / "view.png"],
                   check=True)
    fit = cli("calibrate", "fit", tmp_path / "view.png", "--out", tmp_path / "table.grid", check=False)
    if fit.returncode != 0 and "PNG" in fit.stderr:
        pytest.skip("this build reads no PNG")
    assert fit.returncode == 0, fit.stderr
    assert "found 35 of the sheet's 63 dots" in fit.stdout  # the 7 x 5 inside; the edge dots are cut
    pairs = [tuple(map(float, line.split())) for line in (tmp_path / "table.grid").read_text().splitlines()]
    assert len(pairs) == 80  # (9 + 1) x (7 + 1) entries, one pair per line
    assert max(abs(v) for p in pairs for v in p) < 0.002  # under 0.16 px everywhere
    blank = tmp_path / "blank.pgm"
    blank.write_bytes(b"P5 640 480 255\n" + bytes([200]) * (640 * 480))
    bad = cli("calibrate", "fit", blank, "--out", tmp_path / "none.grid", check=False)
    assert bad.returncode != 0 and "is the whole sheet in view" in bad.stderr
    assert not (tmp_path / "none.grid").exists()


def test_pdf_sheets_print_at_their_size_and_decode(cli, tmp_path):
    """`--out sheet.pdf`: every page in one PDF of the paper's size (librsvg and cairo); rasterised
    (poppler's pdftoppm), the first page's symbols decode as their IDs at the stated size."""
    import re
    import shutil
    import subprocess
    r = cli("symbols", "--ids", "0-35", "--size", "6cm", "--paper", "a4", "--out", tmp_path / "sheet.pdf", check=False)
    if r.returncode != 0 and "PDF output is not built in" in r.stderr:
        pytest.skip("this build has no PDF output (librsvg2-dev)")
    assert r.returncode == 0, r.stderr
    data = (tmp_path / "sheet.pdf").read_bytes()
    assert data.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert len(boxes) == 3  # 36 symbols, 12 per A4 page
    for w, h in boxes:
        assert abs(float(w) - 210 / 25.4 * 72) < 0.1 and abs(float(h) - 297 / 25.4 * 72) < 0.1  # A4 in points
    sheet = cli("calibrate", "sheet", tmp_path / "cal.pdf", "--table-width", "80cm")
    cal = (tmp_path / "cal.pdf").read_bytes()
    (w, h), = re.findall(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", cal)
    assert abs(float(w) - 800 / 25.4 * 72) < 0.1 and abs(float(h) - 600 / 25.4 * 72) < 0.1
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm (Debian poppler-utils) is not installed")
    subprocess.run(["pdftoppm", "-r", "150", "-f", "1", "-l", "1", "-gray", tmp_path / "sheet.pdf", tmp_path / "page"], check=True)
    page = next(tmp_path.glob("page*.pgm"))
    det = cli("detect", page, "--json", "--backend", "cpu")
    found = json.loads(det.stdout.splitlines()[0])["fiducials"]
    assert sorted(f["id"] for f in found) == list(range(12))
    header = page.read_bytes()[:20].split()
    assert abs(int(header[1]) - 1240) <= 1 and abs(int(header[2]) - 1754) <= 1  # A4 at 150 dpi (pdftoppm rounds up)
