"""Reading submissions: layouts, archive safety, limits, names, duplicates."""
import io
import os
import tarfile
import zipfile
from pathlib import Path

from helpers import COURSE, CORRECT, LAB01, LAB03, TempDirTest

from course_grader import intake

LABS = (LAB01, LAB03)


def make_zip(path: Path, members: dict, symlinks: dict = {}):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in symlinks.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16
            zf.writestr(info, target)


def make_tar(path: Path, members: dict, links: list = ()):
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for name, kind, target in links:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = target
            tf.addfile(info)


class Layouts(TempDirTest):
    def discover(self):
        return intake.discover(self.tmp / "input", COURSE, LABS)

    def setUp(self):
        super().setUp()
        (self.tmp / "input").mkdir()

    def write(self, rel: str, data: bytes = CORRECT):
        p = self.tmp / "input" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    def test_flat_and_nested_are_both_accepted(self):
        self.write("flat/matadd.cu")
        self.write("nested/01_matadd/matadd.cu")
        self.write("wrapped/alice_hw/01_matadd/matadd.cu")
        subs, _ = self.discover()
        self.assertEqual([s.student for s in subs], ["flat", "nested", "wrapped"])
        for s in subs:
            self.assertEqual(s.labs["01"].files, {"matadd.cu": CORRECT}, s.student)
            self.assertTrue(s.labs["03"].problem.startswith("no tiled_gemm.cu"))

    def test_empty_folder(self):
        subs, notes = self.discover()
        self.assertEqual(subs, [])

    def test_wrong_file_name_gets_a_hint(self):
        self.write("bob/01_matadd/MatAdd.cu")
        (sub,), _ = self.discover()
        self.assertIn("did you mean matadd.cu", sub.labs["01"].problem)

    def test_file_in_another_labs_folder(self):
        self.write("carol/03_tiled_gemm/matadd.cu")
        (sub,), _ = self.discover()
        self.assertIn("wrong folder", sub.labs["01"].problem)

    def test_two_copies_are_ambiguous(self):
        self.write("dave/matadd.cu")
        self.write("dave/01_matadd/matadd.cu")
        (sub,), _ = self.discover()
        self.assertIn("appears 2 times", sub.labs["01"].problem)

    def test_huge_file_rejected(self):
        self.write("erin/matadd.cu", b"x" * (COURSE.limits.max_file_bytes + 1))
        (sub,), _ = self.discover()
        self.assertIn("larger than", sub.labs["01"].problem)

    def test_binary_and_non_utf8_content(self):
        self.write("f1/matadd.cu", b"int x;\0")
        self.write("f2/matadd.cu", b"// caf\xe9\n")
        s1, s2 = self.discover()[0]
        self.assertIn("NUL", s1.labs["01"].problem)
        self.assertIn("UTF-8", s2.labs["01"].problem)

    def test_duplicate_students(self):
        self.write("alice/matadd.cu")
        make_zip(self.tmp / "input" / "alice.zip", {"matadd.cu": CORRECT})
        (sub,), _ = self.discover()
        self.assertEqual(sub.student, "alice")
        self.assertIn("duplicate", sub.problem)

    def test_names_that_sanitise_alike_get_unique_ids(self):
        self.write("anna_lee/matadd.cu")
        self.write("Anna Lee/matadd.cu")
        make_zip(self.tmp / "input" / "anna lee.zip", {"matadd.cu": CORRECT})
        subs, _ = self.discover()
        self.assertEqual(
            [(s.source, s.student, s.problem) for s in subs],
            [("Anna Lee", "anna_lee", ""), ("anna lee.zip", "anna_lee-2", ""), ("anna_lee", "anna_lee-3", "")],
        )
        for s in subs:
            self.assertEqual(s.labs["01"].files, {"matadd.cu": CORRECT})
        self.assertIn("graded as 'anna_lee-3' (Anna Lee, anna lee gives the same name)", subs[2].notes)

    def test_unique_ids_are_stable_by_sorted_name(self):
        self.assertEqual(
            intake.unique_ids(["anna_lee", "Anna Lee"]), {"Anna Lee": "anna_lee", "anna_lee": "anna_lee-2"}
        )
        self.assertEqual(intake.unique_ids(["b", "a-2", "a", "A"]), {"A": "a", "a": "a-2", "a-2": "a-2-2", "b": "b"})
        self.assertEqual(intake.student_id("Jörg Müller.tar.gz"), "j_rg_m_ller")
        self.assertEqual(intake.student_id("..."), "student")

    def test_non_utf8_student_name(self):
        os.mkdir(os.path.join(os.fsencode(self.tmp / "input"), b"j\xf6rg"))
        with open(os.path.join(os.fsencode(self.tmp / "input"), b"j\xf6rg", b"matadd.cu"), "wb") as f:
            f.write(CORRECT)
        (sub,), _ = self.discover()
        self.assertRegex(sub.student, r"^[A-Za-z0-9._-]+$")
        self.assertEqual(sub.labs["01"].files, {"matadd.cu": CORRECT})
        sub.source.encode("utf-8")  # printable

    def test_symlinks_are_not_followed(self):
        secret = self.tmp / "secret.cu"
        secret.write_bytes(b"secret")
        (self.tmp / "input" / "mallory").mkdir()
        os.symlink(secret, self.tmp / "input" / "mallory" / "matadd.cu")
        os.symlink(self.tmp / "input" / "mallory", self.tmp / "input" / "linked")
        subs, notes = self.discover()
        self.assertEqual([s.student for s in subs], ["mallory"])
        self.assertIn("no matadd.cu", subs[0].labs["01"].problem)
        self.assertTrue(any("symbolic link" in n for n in subs[0].notes))
        self.assertTrue(any("linked" in n for n in notes))

    def test_other_files_are_ignored(self):
        self.write("gus/matadd.cu")
        self.write("gus/CMakeLists.txt", b"evil")
        self.write("input_notes.txt", b"not a submission")
        (sub,), notes = self.discover()
        self.assertIn("ignored 1 file(s)", " ".join(sub.notes))
        self.assertTrue(any("input_notes.txt" in n for n in notes))


class Forks(TempDirTest):
    """A submission that is a fork of the course repository: the lab's own path wins over solutions/."""

    def setUp(self):
        super().setUp()
        (self.tmp / "input").mkdir()

    def read(self, members: dict):
        make_zip(self.tmp / "input" / "fork.zip", members)
        return intake.read_submission(self.tmp / "input" / "fork.zip", "fork", COURSE, LABS)

    def test_the_labs_own_path_wins_over_solutions(self):
        for mine in ("labs/01_matadd/matadd.cu", "01_matadd/matadd.cu", "course-main/labs/01_matadd/matadd.cu"):
            top = mine.split("labs/")[0] if mine.startswith("course-main") else ""
            sub = self.read({mine: CORRECT, f"{top}solutions/01_matadd/matadd.cu": b"// the reference solution\n"})
            self.assertEqual(sub.labs["01"].problem, "", mine)
            self.assertEqual(sub.labs["01"].files, {"matadd.cu": CORRECT}, mine)
            note = [n for n in sub.notes if "solutions/" in n]
            self.assertEqual(len(note), 1, sub.notes)
            self.assertIn(f"ignored {top}solutions/01_matadd/matadd.cu", note[0])
            self.assertIn(f"yours is {mine}", note[0])

    def test_a_copy_only_under_solutions_is_not_graded(self):
        sub = self.read({"solutions/01_matadd/matadd.cu": CORRECT})
        self.assertTrue(sub.labs["01"].problem.startswith("no matadd.cu in the submission outside solutions/"))
        self.assertIn("labs/01_matadd/matadd.cu", sub.labs["01"].problem)
        self.assertTrue(any("never graded" in n for n in sub.notes))

    def test_two_copies_outside_solutions_are_still_ambiguous(self):
        sub = self.read(
            {
                "labs/01_matadd/matadd.cu": CORRECT,
                "01_matadd/matadd.cu": CORRECT,
                "solutions/01_matadd/matadd.cu": CORRECT,
            }
        )
        problem = sub.labs["01"].problem
        self.assertIn("matadd.cu appears 2 times (labs/01_matadd/matadd.cu, 01_matadd/matadd.cu)", problem)
        self.assertNotIn("solutions/", problem)
        self.assertIn("cannot tell which one", problem)
        self.assertIn("submit exactly one", problem)


class Archives(TempDirTest):
    def setUp(self):
        super().setUp()
        (self.tmp / "input").mkdir()
        (self.tmp / "out").mkdir()

    def read(self, name):
        return intake.read_submission(self.tmp / "input" / name, "s", COURSE, LABS)

    def test_zip_and_tar_accepted(self):
        make_zip(self.tmp / "input" / "a.zip", {"a/01_matadd/matadd.cu": CORRECT})
        make_tar(self.tmp / "input" / "b.tar.gz", {"01_matadd/matadd.cu": CORRECT})
        self.assertEqual(self.read("a.zip").labs["01"].files, {"matadd.cu": CORRECT})
        self.assertEqual(self.read("b.tar.gz").labs["01"].files, {"matadd.cu": CORRECT})

    def test_dotdot_absolute_and_symlink_members_rejected(self):
        make_zip(
            self.tmp / "input" / "z.zip",
            {"../matadd.cu": CORRECT, "/tmp/matadd.cu": CORRECT},
            symlinks={"01_matadd/matadd.cu": "/etc/passwd"},
        )
        make_tar(
            self.tmp / "input" / "t.tar.gz",
            {"../../matadd.cu": CORRECT, "/abs/matadd.cu": CORRECT},
            links=[
                ("01_matadd/matadd.cu", tarfile.SYMTYPE, "/etc/passwd"),
                ("x/matadd.cu", tarfile.LNKTYPE, "/etc/passwd"),
            ],
        )
        for name in ("z.zip", "t.tar.gz"):
            sub = self.read(name)
            self.assertEqual(sub.problem, "")
            self.assertIn("no matadd.cu", sub.labs["01"].problem, name)
            text = " ".join(sub.notes)
            self.assertIn("'..'", text)
            self.assertIn("absolute path", text)
            self.assertIn("link", text)
        self.assertEqual(self.files_outside(self.tmp / "out"), [])  # nothing extracted anywhere

    def test_corrupt_archive(self):
        (self.tmp / "input" / "bad.zip").write_bytes(b"PK\x03\x04garbage")
        (self.tmp / "input" / "bad.tar.gz").write_bytes(b"\x1f\x8bgarbage")
        for name in ("bad.zip", "bad.tar.gz"):
            self.assertIn("cannot read", self.read(name).problem)

    def test_zip_bomb_member_rejected_on_data_read(self):
        make_zip(self.tmp / "input" / "bomb.zip", {"matadd.cu": b"/" * (COURSE.limits.max_file_bytes * 4)})
        self.assertIn("larger than", self.read("bomb.zip").labs["01"].problem)

    def test_stage_writes_only_the_lab_file(self):
        make_zip(self.tmp / "input" / "a.zip", {"01_matadd/matadd.cu": CORRECT, "../../evil.sh": b"rm -rf"})
        sub = self.read("a.zip")
        root = intake.stage(sub, LAB01, self.tmp / "out")
        self.assertEqual(
            sorted(p.relative_to(self.tmp / "out").as_posix() for p in (self.tmp / "out").rglob("*") if p.is_file()),
            ["s/01_matadd/matadd.cu"],
        )
        self.assertEqual(root, self.tmp / "out" / "s")


if __name__ == "__main__":
    import unittest

    unittest.main()
