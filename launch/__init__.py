"""What ``bin/run`` runs once the machine is set up: the Procfile's release step, then every process type
under honcho, optionally against a mail lab of its own; it says where everything is once it all answers.

Not part of the service: a developer's launcher, like ``demo/`` (the processes it starts are the service).
"""
