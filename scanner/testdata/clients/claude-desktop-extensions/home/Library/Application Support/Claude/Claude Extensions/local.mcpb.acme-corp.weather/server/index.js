console.log("weather")
