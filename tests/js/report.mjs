// How every driver here ends (run by tests/integration/compat/test_js_*.py): main()'s report as one
// JSON line on stdout and exit 0; on failure, the error's stack and the session errors the driver
// collected on stderr and exit 1 (the Python test shows stderr when the exit code is not 0).
export function report(main, errors) {
  main().then(
    (result) => {
      process.stdout.write(JSON.stringify(result) + '\n');
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`${error.stack ?? error}\nerrors: ${JSON.stringify(errors)}\n`);
      process.exit(1);
    },
  );
}
