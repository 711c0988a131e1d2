"""Bot checkpoints. ``shipped/`` holds the learned bots that come with the package (installed as
``tranquility_env.checkpoints``); training runs write their own folders beside it."""
