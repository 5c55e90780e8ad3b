import UprightCLI

Upright.serveMPVWhenAsked()
await Upright.run()
