-- wrk script: OFREP bulk evaluations (POST with a JSON context and a bearer token).
-- The token comes from the environment variable FLAG_SERVER_BENCH_TOKEN.
wrk.method = "POST"
wrk.body = '{"context": {"targetingKey": "user-1", "country": "DE"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("FLAG_SERVER_BENCH_TOKEN")

function done(summary, latency, requests)
  io.write(string.format("non-200 responses: %d\n", summary.errors.status))
end
