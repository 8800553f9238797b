import unittest

from greet import greeting, main


class GreetingTest(unittest.TestCase):
    def test_greeting(self):
        self.assertEqual(greeting("Ada"), "Hello, Ada!")

    def test_main_returns_zero(self):
        self.assertEqual(main(["Ada"]), 0)


if __name__ == "__main__":
    unittest.main()
