;;; init.el --- the user's init file in the Eglot tests -*- lexical-binding: t -*-
;; The block of docs/editors/emacs.md, with the server started from the test's Python and replaying a script
;; (--fake-responses), plus what lets the test read the state a user reads on screen.

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               `(python-mode . (,(getenv "AGENT_LSP_PYTHON") "-m" "agent_lsp" "lsp"
                                "--fake-responses" ,(getenv "AGENT_LSP_RESPONSES")
                                :initializationOptions (:agentLsp (:approvalMode "default"))))))

(defun agent-lsp-ask (request)
  "Ask the agent (agent-lsp, through Eglot) anything about this project."
  (interactive "sAsk the agent: ")
  (eglot-execute (eglot-current-server) `(:command "agent.prompt" :arguments [,request])))

(defun agent-lsp-cancel ()
  "Stop the agent's running request."
  (interactive)
  (eglot-execute (eglot-current-server) '(:command "agent.cancel" :arguments [])))

;; The test's own settings. A slow answer must outlive Eglot's wait for a request (10 s by default): the test
;; waits past a shorter one instead of 10 s.
(setq jsonrpc-default-request-timeout (string-to-number (getenv "EGLOT_TEST_TIMEOUT")))
(setq eglot-report-progress 'messages)
(setq make-backup-files nil auto-save-default nil)
(require 'server)
(setq server-socket-dir (getenv "EGLOT_TEST_SOCKETS"))
(server-start)
