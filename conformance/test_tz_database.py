"""The runner's reading of the tz database's build format (amabi._daylight_flag) and the
skip it decides for Europe/Dublin's is_dst cases."""

import struct

import amabi


def _tzif(transitions, types, version=b"2"):
    """A TZif file: a 32-bit block then, from version 2, the same data with 64-bit times
    (RFC 8536, no leap seconds, no designations beyond one)."""

    def block(width):
        listed = [(t, i) for t, i in transitions if width == 8 or -(2**31) <= t < 2**31]
        head = b"TZif" + version + bytes(15)
        head += struct.pack(">6l", 0, 0, 0, len(listed), len(types), 4)
        times = b"".join(struct.pack(">q" if width == 8 else ">l", t) for t, _ in listed)
        index = bytes(i for _, i in listed)
        info = b"".join(struct.pack(">lBB", off, dst, 0) for off, dst in types)
        return head + times + index + info + b"GMT\0"

    return block(4) + (block(8) + b"\n\n" if version >= b"2" else b"")


def test_daylight_flag_reads_the_period_in_effect(tmp_path, monkeypatch):
    # Like the main format: winter (GMT) daylight, summer (IST) standard.
    (tmp_path / "Europe").mkdir()
    data = _tzif([(-100, 0), (1000, 1), (2000, 0)], [(3600, 0), (0, 1)])
    (tmp_path / "Europe" / "Dublin").write_bytes(data)
    monkeypatch.setattr(amabi, "TZ_DATABASE", str(tmp_path))
    assert amabi._daylight_flag("Europe/Dublin", -200) is False  # before any: type 0
    assert amabi._daylight_flag("Europe/Dublin", 1000) is True
    assert amabi._daylight_flag("Europe/Dublin", 1999) is True
    assert amabi._daylight_flag("Europe/Dublin", 2000) is False
    assert amabi._daylight_flag("Europe/Nowhere", 0) is None


def test_daylight_flag_reads_the_64_bit_block(tmp_path, monkeypatch):
    # A transition past 2038 is only in the 64-bit block: the 32-bit one cannot hold it.
    late = 2**32
    (tmp_path / "Zone").write_bytes(_tzif([(1000, 0), (late, 1)], [(0, 0), (0, 1)]))
    monkeypatch.setattr(amabi, "TZ_DATABASE", str(tmp_path))
    assert amabi._daylight_flag("Zone", late - 1) is False
    assert amabi._daylight_flag("Zone", late) is True


def test_rearguard_database_skips_dublin_is_dst(monkeypatch):
    case = {"op": "is_dst", "inputs": [{"type": "timestamp[s]", "tz": "Europe/Dublin"}],
            "params": {}}  # fmt: skip
    monkeypatch.setattr(amabi, "TZ_DATABASE_HERE", True)
    monkeypatch.setattr(amabi, "DUBLIN_WINTER_IS_DAYLIGHT", False)
    assert "rearguard" in amabi.not_on_backend(case, "cpu")
    london = dict(case, inputs=[{"type": "timestamp[s]", "tz": "Europe/London"}])
    assert amabi.not_on_backend(london, "cpu") is None
    monkeypatch.setattr(amabi, "DUBLIN_WINTER_IS_DAYLIGHT", True)
    assert amabi.not_on_backend(case, "cpu") is None
