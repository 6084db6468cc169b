import { app } from 'electron'; app.whenReady()
