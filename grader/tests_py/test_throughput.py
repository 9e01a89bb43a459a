"""The throughput benchmark's class (grader/tools/throughput.py, class_mix.toml): every lab has every behaviour, each
generates from the current sources, and the mix is dealt out exactly and reproducibly."""
import collections
import sys
import unittest

from helpers import COURSE, GRADER, TempDirTest

sys.path.insert(0, str(GRADER / "tools"))
import throughput  # noqa: E402

from course_grader import samples  # noqa: E402


class ClassMix(TempDirTest):
    def test_every_lab_has_every_behaviour_and_each_generates(self):
        table = throughput.behaviours(throughput.SPEC, COURSE.labs)
        self.assertEqual(set(table), {(lab.number, b) for lab in COURSE.labs for b in throughput.BEHAVIOURS})
        for (number, behaviour), sample in table.items():
            text = samples.text(sample, COURSE.labs)  # raises when an edit no longer applies to the source
            self.assertEqual(sample.path.split("/")[0], COURSE.lab(number).folder, (number, behaviour))
            if behaviour == "hanging":
                self.assertIn("spin_kernel<<<", text)

    def test_the_mix_is_dealt_exactly_and_reproducibly(self):
        mix = throughput.parse_mix(throughput.DEFAULT_MIX)
        students = [f"s{i}" for i in range(8)]
        cells = throughput.assign(students, COURSE.labs, mix, seed=1)
        self.assertEqual(len(cells), 8 * len(COURSE.labs))
        counts = collections.Counter(cells.values())
        for behaviour, fraction in mix.items():
            self.assertLess(abs(counts[behaviour] - fraction * len(cells)), 1, behaviour)
        self.assertEqual(cells, throughput.assign(students, COURSE.labs, mix, seed=1))
        self.assertNotEqual(cells, throughput.assign(students, COURSE.labs, mix, seed=2))

    def test_written_class_and_its_expectations(self):
        cells = {("s1", lab.number): "hanging" for lab in COURSE.labs} | {("s2", "01"): "correct"}
        table = throughput.behaviours(throughput.SPEC, COURSE.labs)
        wanted = throughput.write_class(self.tmp / "class", cells, table, COURSE.labs)
        self.assertEqual(wanted[("s1", "03")]["cpu"], ["timeout"])
        self.assertTrue((self.tmp / "class" / "s1" / "06_reduction" / "reduction.cu").is_file())
        self.assertEqual(sorted(p.name for p in (self.tmp / "class").iterdir()), ["s1", "s2"])

    def test_bad_mixes(self):
        for text in ("correct=1,fast=2", "correct=x", "correct=-1", "correct=0"):
            with self.assertRaises(throughput.ThroughputError, msg=text):
                throughput.parse_mix(text)


if __name__ == "__main__":
    unittest.main()
