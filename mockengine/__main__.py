from mockengine.cli import main

raise SystemExit(main())
