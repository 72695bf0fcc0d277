run("config 1, request set to 60", config: 1, request: 60)
run("config 2, request set to 59", config: 2, request: 59)
