import UprightCLI

Upright.run()
