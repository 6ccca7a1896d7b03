"""skills.jsonl: appended per step; on resume the rows after the resumed step are dropped."""

from coevo.rsipo.skill_log import SkillLog, read_skills


def test_append_and_truncate_on_resume(tmp_path):
    log = SkillLog(tmp_path / "skills.jsonl")
    log.write([{"step": 1, "skill": "a"}, {"step": 1, "skill": "b"}])
    log.write([{"step": 2, "skill": "c"}])
    log.write([{"step": 3, "skill": "d"}])
    assert [r["skill"] for r in read_skills(tmp_path / "skills.jsonl")] == ["a", "b", "c", "d"]
    log.truncate_after(2)  # resumed from step 2
    assert [r["step"] for r in read_skills(tmp_path / "skills.jsonl")] == [1, 1, 2]
    SkillLog(None).write([{"step": 1}])  # no run folder: nothing written, no error
    assert read_skills(tmp_path / "missing.jsonl") == []
