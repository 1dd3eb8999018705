"""scripts/soak.py's TUIO checks on packets made here: the OSC parser reads what liblo sends, fseq
going backwards is counted, and an object session that leaves the alive list and comes back is
caught, but not across a lost bundle."""
import importlib.util
import struct

from conftest import ROOT

spec = importlib.util.spec_from_file_location("soak", ROOT / "scripts" / "soak.py")
soak = importlib.util.module_from_spec(spec)
spec.loader.exec_module(soak)


def osc_string(s):
    b = s.encode() + b"\x00"
    return b + b"\x00" * (-len(b) % 4)


def message(address, *args):
    tags = "," + "".join("s" if isinstance(a, str) else "f" if isinstance(a, float) else "i" for a in args)
    body = b"".join(osc_string(a) if isinstance(a, str) else struct.pack(">f" if isinstance(a, float) else ">i", a) for a in args)
    return osc_string(address) + osc_string(tags) + body


def bundle(*messages):
    return b"#bundle\x00" + b"\x00" * 8 + b"".join(struct.pack(">i", len(m)) + m for m in messages)


def frame(fseq, *alive):
    return bundle(message("/tuio/2Dobj", "source", "gpuvis"), message("/tuio/2Dobj", "alive", *alive),
                  message("/tuio/2Dobj", "set", alive[0] if alive else 0, 5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
                  message("/tuio/2Dobj", "fseq", fseq))


def test_the_parser_reads_every_argument_type_and_nested_bundles():
    packet = bundle(message("/a", "x", 7, 1.5), bundle(message("/b", -3)))
    assert list(soak.osc_messages(packet)) == [("/a", ["x", 7, 1.5]), ("/b", [-3])]


def test_a_session_that_comes_back_is_caught_but_not_across_a_lost_bundle():
    r = soak.TuioReceiver()
    for fseq, alive in [(0, (1, 2)), (1, (1, 2)), (2, (1,)), (3, (1, 3))]:
        r.bundle(frame(fseq, *alive))
    assert r.reappeared == 0 and r.sessions == {1, 2, 3} and r.backwards == 0
    r.bundle(frame(4, 1, 2))  # session 2 left at fseq 2 and is back
    assert r.reappeared == 1
    q = soak.TuioReceiver()
    q.bundle(frame(0, 1, 2))
    q.bundle(frame(2, 1))  # fseq 1 was lost: 2 is not known to have left
    q.bundle(frame(3, 1, 2))
    assert q.reappeared == 0
    q.bundle(frame(3, 1, 2))
    assert q.backwards == 1
