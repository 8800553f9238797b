import contextlib
import io
import unittest

from greet import greeting, main


class GreetingTest(unittest.TestCase):
    def test_greeting(self):
        self.assertEqual(greeting("Ada"), "Hello, Ada!")

    def test_main_prints_the_greeting(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(main(["Ada", "--times", "2"]), 0)
        self.assertEqual(out.getvalue(), "Hello, Ada!\nHello, Ada!\n")


if __name__ == "__main__":
    unittest.main()
