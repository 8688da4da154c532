console.log("lp")
