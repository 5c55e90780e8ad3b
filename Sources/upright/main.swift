import UprightCLI

await Upright.run()
