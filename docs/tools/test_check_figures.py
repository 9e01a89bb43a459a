"""Unit tests for check_figures.py. Run: python3 -m unittest discover -s docs/tools -v"""

import contextlib
import io
import unittest

import check_figures as cf
from test_build_site import RepoTest


class CheckFiguresTest(RepoTest):
    files = {
        "docs/figures/speed.png": "png",
        "docs/data/speed.json": "{}",
        "docs/tiling.md": "![speed](figures/speed.png)\n```\n![in code](figures/none.png)\n```\n",
        "labs/03_tiled_gemm/README.md": "![speed](../../docs/figures/speed.png) ![web](https://x.org/a.png)\n",
    }

    def test_complete_tree_passes(self):
        self.assertEqual(cf.missing_images(self.root) + cf.missing_data(self.root), [])
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(cf.main(["--root", str(self.root)]), 0)

    def test_missing_image_is_listed(self):
        self.repo.write("docs/halos.md", 'Intro\n![r](figures/radius.png)\n<img src="figures/b.svg">\n')
        self.assertEqual(
            cf.missing_images(self.root),
            [
                "docs/halos.md:2: image figures/radius.png (docs/figures/radius.png) does not exist",
                "docs/halos.md:3: image figures/b.svg (docs/figures/b.svg) does not exist",
            ],
        )

    def test_figure_without_data_is_listed(self):
        self.repo.write("docs/figures/conflicts.svg", "<svg/>")
        self.assertEqual(
            cf.missing_data(self.root), ["docs/figures/conflicts.svg: data docs/data/conflicts.json does not exist"]
        )
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(cf.main(["--root", str(self.root)]), 1)
        self.assertIn("missing: docs/figures/conflicts.svg", out.getvalue())


if __name__ == "__main__":
    unittest.main()
