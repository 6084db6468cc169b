console.log('host')
